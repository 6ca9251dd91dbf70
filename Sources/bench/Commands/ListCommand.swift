import ArgumentParser
import Harness
import Probe
import Strategies

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the strategies, renderers and allocators that can be measured.")

    func run() throws {
        print("Strategies (--strategy):")
        let width = StrategyCatalog.names.map(\.count).max() ?? 0
        for strategy in StrategyCatalog.all {
            print("  " + strategy.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + strategy.summary)
        }
        print("\nRenderers (--render):")
        print("  none       fetch only, nothing decoded")
        print("  full       decode to 8-bit RGBA (4 bytes a pixel), kept alive as if on screen")
        print("  thumbnail  libjpeg DCT-scaled decode bounded by --max-pixel; never the full bitmap")
        print("\nAllocators (--allocator):")
        print("  system     glibc malloc; heap counters from mallinfo2()")
        print("  jemalloc   libjemalloc.so.2 preloaded into the child; counters from mallctl"
              + (JemallocLibrary.locate() == nil ? " (NOT FOUND: run scripts/setup.sh)" : ""))
    }
}

import Foundation

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
        for strategy in StrategyCatalog.available {
            // A user's strategy (registered by their own executable through ImageMemoryBench) is marked.
            let mark = StrategyCatalog.isUser(strategy.name) ? "[yours] " : ""
            print("  " + strategy.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + mark + strategy.summary)
        }
        print("\nRenderers (--render):")
        print("  none       fetch only, nothing decoded")
        print("  full       decode to 8-bit RGBA (4 bytes a pixel), kept alive as if on screen")
        print("  thumbnail  libjpeg DCT-scaled decode bounded by --max-pixel; never the full bitmap")
        print("\nAllocators (--allocator):")
        print("  system     glibc malloc")
        print("  jemalloc   libjemalloc.so.2 preloaded into the child"
              + (JemallocLibrary.locate() == nil ? " (NOT FOUND: run scripts/setup.sh)" : ""))
        print("  Under either, bench's own malloc wrappers (linked in, CHeapPeak) forward to it and keep the exact heap peak;")
        print("  with --no-exact-heap the heap comes from the allocator's own counters (mallinfo2, mallctl).")
    }
}

import Foundation

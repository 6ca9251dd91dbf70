import ArgumentParser
import Harness
import Measuring
import Probe
import Strategies

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the strategies, renderers and allocators that can be measured, or the files the commands write."
    )

    @Flag(
        help:
            "List every file the measuring commands write (a Markdown table: the command, when, the key of its rows) instead."
    )
    var outputFiles = false

    @Flag(
        help:
            "With --output-files: JSON, each file with its columns and trials.csv's figures (unit, polarity, meaning)."
    )
    var json = false

    func validate() throws {
        guard !json || outputFiles else {
            throw ValidationError("--json lists the output files: give --output-files too")
        }
    }

    func run() throws {
        if outputFiles {
            print(json ? try OutputFiles.json() : OutputFiles.markdownTable(), terminator: "")
            return
        }
        // A user's strategy or renderer (registered by their own executable through ImageMemoryBench) is marked.
        print("Strategies (--strategy):")
        printEntries(StrategyCatalog.available.map { ($0.name, $0.summary, StrategyCatalog.isUser($0.name)) })
        print("\nRenderers (--render):")
        printEntries(RendererCatalog.available.map { ($0.name, $0.summary, RendererCatalog.isUser($0.name)) })
        print("\nAllocators (--allocator):")
        print("  system     glibc malloc")
        print(
            "  jemalloc   libjemalloc.so.2 preloaded into the child"
                + (JemallocLibrary.locate() == nil ? " (NOT FOUND: run scripts/setup.sh)" : "")
        )
        print(
            "  Under either, bench's own malloc wrappers (linked in, CHeapPeak) forward to it and keep the exact heap peak;"
        )
        print("  with --no-exact-heap the heap comes from the allocator's own counters (mallinfo2, mallctl).")
    }

    private func printEntries(_ entries: [(name: String, summary: String, isUser: Bool)]) {
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let mark = entry.isUser ? "[yours] " : ""
            print("  " + entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + mark + entry.summary)
        }
    }
}

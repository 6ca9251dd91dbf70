import ArgumentParser
import BenchCore
import Harness

/// `--render`, as run, sweep and corpus take it: renderers from `bench list`; the default is the
/// command's (`D`).
struct RenderOption<D: RenderDefaults>: ParsableArguments {
    @Option(
        name: .customLong("render"),
        parsing: .singleValue,
        help: ArgumentHelp(
            "Renderer to measure; \(ListOption.forms). See `bench list`. (default: \(D.renderDefaultHelp)) "
                + "(values: \(RenderMode.allValueStrings.joined(separator: ", ")))",
            valueName: "name"
        ),
        completion: .list(RenderMode.allValueStrings),
        transform: { text in
            try ListOption.parse(
                text,
                option: "--render",
                example: "none,full",
                choices: RenderMode.allValueStrings.joined(separator: ", ")
            ) { RenderMode(argument: $0) }
        }
    )
    var given: [[RenderMode]] = []

    var requested: [RenderMode] { given.flatMap { $0 } }

    /// The renderers to measure: as given, or the command's default.
    var modes: [RenderMode] { requested.isEmpty ? D.defaultRenders : requested }

    func validate() throws {
        try ListOption.requireDistinct(requested, entries: requested.map(\.rawValue), option: "--render")
    }
}

/// `--allocator`, as run and corpus take it: system, jemalloc or both; the default is the command's (`D`).
struct AllocatorOption<D: AllocatorDefaults>: ParsableArguments {
    @Option(
        name: .customLong("allocator"),
        parsing: .singleValue,
        help: ArgumentHelp(
            "Allocator of the measured child: system or jemalloc; \(ListOption.forms). (default: \(D.allocatorDefaultHelp)) "
                + "(values: \(Allocator.allValueStrings.joined(separator: ", ")))"
        ),
        completion: .list(Allocator.allValueStrings),
        transform: { text in
            try ListOption.parse(
                text,
                option: "--allocator",
                example: "system,jemalloc",
                choices: Allocator.allValueStrings.joined(separator: ", ")
            ) { Allocator(argument: $0) }
        }
    )
    var given: [[Allocator]] = []

    var requested: [Allocator] { given.flatMap { $0 } }

    var allocators: [Allocator] { requested.isEmpty ? D.defaultAllocators : requested }

    func validate() throws {
        try ListOption.requireDistinct(requested, entries: requested.map(\.rawValue), option: "--allocator")
    }
}

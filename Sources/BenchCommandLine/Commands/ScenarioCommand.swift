import ArgumentParser
import BenchCore
import Foundation
import Harness
import Imaging
import Measuring
import Report
import Scenarios

/// `bench scenario ...`: app-like workloads, each measured in a fresh child process.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract:
            "Measure app-like workloads: a scrolling list with cancellation and a cache, an image server under load.",
        subcommands: [ListScrollCommand.self, ImageServerCommand.self]
    )
}

package struct ListScrollCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "list-scroll",
        abstract: "Scroll a list of images: rows entering the window start a request, rows leaving cancel theirs.",
        discussion: """
            Each row has its own URL on the embedded loopback server; bodies cycle over --sizes. The window of \
            --visible rows moves --speed rows a second to the end of the list and back, so rows seen twice can \
            come from the cache. Lists (comma-separated) of strategies, renderers and caps run every combination, \
            each in a fresh child. Rows are appended to <out>/list-scroll.csv (default: a new runs/<UTC time>/), each \
            with every setting (bandwidth and fixture sizes included) and the run_id of the invocation.

            Exit status: 0 every scroll finished; 3 some failed; 64 bad input; 70 harness error; 73 the \
            output folder cannot be written; 74 writing failed during the run (rows kept in the rescue \
            folder named on stderr); 75 another run holds the folder; 130/143/129 interrupted (SIGINT/SIGTERM/SIGHUP).

            Examples:
              bench scenario list-scroll --strategy data --render thumbnail --max-concurrent 4
              bench scenario list-scroll --strategy data,download --render full,thumbnail --max-concurrent 1,2,4,6,8,16
              bench scenario list-scroll --cache-limit 64Mi --bandwidth 20M --speed 5
            """
    )

    @Option(
        parsing: .singleValue,
        help:
            "Cancellable strategies (\(ListOption.forms)): \(ScrollStrategy.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var strategy = ["data"]

    // The built-in renderers only: the scenario decodes in its own process, through Renderer.
    @Option(
        parsing: .singleValue,
        help: "Renderers (\(ListOption.forms)): \(RenderMode.builtIns.map(\.rawValue).joined(separator: ", "))."
    )
    var render = ["thumbnail"]

    @Option(
        parsing: .singleValue,
        help: "Caps on requests in progress (fetch and decode), each 1...16 (\(ListOption.forms))."
    )
    var maxConcurrent = ["4"]

    @Option(help: "Rows in the list.")
    var rows = 100

    @Option(help: "Rows visible at once (the window).")
    var visible = 8

    @Option(help: "Scroll speed in rows per second.")
    var speed = 20.0

    @Option(
        help: ArgumentHelp(
            "Decoded-image cache limit in bytes, e.g. 64Mi (\(ByteSize.rule)); 0 turns the cache off. (default: 0)",
            valueName: "bytes"
        ),
        transform: {
            try ByteSize.parse(
                $0,
                option: "--cache-limit",
                range: 0...(1 << 40),
                example: "0 (off), 50000000, 64M, 64Mi or 1Gi"
            )
        }
    )
    var cacheLimit = 0

    @OptionGroup var throttle: BandwidthOption
    var bandwidth: ByteRate? { throttle.bandwidth }

    @OptionGroup var limits: DecodeLimitOptions<ListScrollCommand>

    @Option(
        parsing: .singleValue,
        help:
            "Fixture sizes the rows cycle over, WIDTHxHEIGHT (\(ListOption.forms); a size may repeat: the rows cycle over the pattern). (default: 8 sizes, 0.5-24 MP)"
    )
    var sizes: [String] = []

    @Option(
        help:
            "Server fault on every --fault-every-th row, on every attempt: \(ScrollFault.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var fault: String?

    @Option(help: "Which rows get --fault: every N-th, from row 0.")
    var faultEvery = 4

    @Option(help: "Times a failed request is retried (0...5) before its row shows a placeholder.")
    var retries = 0

    @Option(
        help: ArgumentHelp(
            "Hard limit on the child's memory (RLIMIT_DATA: heap and private mappings), in bytes, at least 16Mi, "
                + "e.g. 300Mi (\(ByteSize.rule)); over it the child is killed.",
            valueName: "bytes"
        ),
        transform: {
            try ByteSize.parse(
                $0,
                option: "--memory-limit",
                range: ListScrollCommand.smallestMemoryLimit...(1 << 40),
                example: "300Mi or 1G"
            )
        }
    )
    var memoryLimit: Int?

    /// Below this the child cannot start.
    static let smallestMemoryLimit = 16 << 20

    @OptionGroup var runsOption: RunsOption<ListScrollCommand>
    var runs: Int { runsOption.runs }

    @Option(help: "Seconds a scroll may take before it is recorded as a timeout.")
    var timeout = 120.0

    @OptionGroup var cache: FixtureCacheOption

    @OptionGroup var output: OutFolderOption<ListScrollCommand>
    var out: String? { output.out }

    package func validate() throws {
        _ = try strategies()
        _ = try renderers()
        _ = try caps()
        _ = try fixtures()
        guard (1...10_000).contains(rows) else {
            throw ValidationError("--rows must be between 1 and 10000 (got \(rows))")
        }
        guard (1...rows).contains(visible) else {
            throw ValidationError("--visible must be between 1 and --rows (\(rows)) (got \(visible))")
        }
        // A tiny speed would make the child's step (1e9 / speed ns) overflow its UInt64: bounded below too.
        guard (0.01...1000).contains(speed) else {
            throw ValidationError("--speed must be between 0.01 and 1000 rows a second (got \(speed))")
        }
        if let fault, ScrollFault(rawValue: fault) == nil {
            throw ValidationError(
                "--fault '\(fault)' is not valid; valid: \(ScrollFault.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        guard (1...10_000).contains(faultEvery) else {
            throw ValidationError("--fault-every must be between 1 and 10000 (got \(faultEvery))")
        }
        guard (0...5).contains(retries) else {
            throw ValidationError("--retries must be between 0 and 5 (got \(retries))")
        }
        guard timeout > 0 && timeout <= 3600 else {
            throw ValidationError("--timeout must be in (0, 3600] seconds (got \(timeout))")
        }
    }

    package init() {}

    package func run() throws {
        let request = try request()
        try measuring { try ScrollMeasurement(request).run() }
    }

    /// What the options ask to measure: refuses (64) a list entry that names no choice, naming the valid ones.
    package func request() throws -> ScrollRequest {
        var template = ListScrollScenario.Settings(
            strategy: .data,
            render: .none,
            fixtures: try fixtures(),
            fixtureCacheDirectory: cache.directory
        )
        template.rows = rows
        template.visibleRows = visible
        template.rowsPerSecond = speed
        template.cacheLimitBytes = cacheLimit
        template.maxPixel = limits.maxPixel
        template.maxImagePixels = limits.maxImagePixels
        template.bandwidthBytesPerSecond = bandwidth?.bytesPerSecond
        template.timeoutSeconds = timeout
        template.fault = fault.flatMap(ScrollFault.init(rawValue:))
        template.faultEvery = faultEvery
        template.retries = retries
        template.memoryLimitBytes = memoryLimit
        return ScrollRequest(
            strategies: try strategies(),
            renders: try renderers(),
            caps: try caps(),
            runs: runs,
            template: template,
            output: MeasurementOutput(out: out)
        )
    }

    // MARK: Parsing lists, with errors that name the valid choices

    func strategies() throws -> [ScrollStrategy] {
        try list(strategy, option: "--strategy", example: "data,download") { ScrollStrategy(rawValue: $0) }
    }

    func renderers() throws -> [RenderMode] {
        try list(render, option: "--render", example: "none,thumbnail") { name in
            RenderMode.builtIns.first { $0.rawValue == name }
        }
    }

    func caps() throws -> [Int] {
        try list(maxConcurrent, option: "--max-concurrent", choices: "whole numbers 1...16", example: "1,4,16") {
            Int($0).flatMap { (1...16).contains($0) ? $0 : nil }
        }
    }

    func fixtures() throws -> [FixtureSpec] {
        guard !sizes.isEmpty else { return ListScrollScenario.defaultFixtures }
        // The rows cycle over the sizes: one given twice is a pattern, not a repeat.
        let entries = try sizes.flatMap { try ListOption.entries($0, option: "--sizes", example: "1600x1200,800x600") }
        return try entries.enumerated().map { offset, text in
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ (16...30_000).contains($0) }) else {
                throw ValidationError(
                    "--sizes entry '\(text)' is not WIDTHxHEIGHT with sides 16...30000, e.g. 1600x1200"
                )
            }
            return FixtureSpec(width: parts[0], height: parts[1], quality: 85, seed: UInt64(100 + offset))
        }
    }

    private func list<Value: Equatable>(
        _ occurrences: [String],
        option: String,
        choices: String? = nil,
        example: String,
        parse: (String) -> Value?
    ) throws -> [Value] {
        try ListOption.values(
            occurrences,
            option: option,
            example: example,
            choices: choices ?? validChoices(for: option),
            parse
        )
    }

    private func validChoices(for option: String) -> String {
        option == "--strategy"
            ? ScrollStrategy.allCases.map(\.rawValue).joined(separator: ", ")
            : RenderMode.builtIns.map(\.rawValue).joined(separator: ", ")
    }
}

/// list-scroll's defaults for the shared options, and why.
extension ListScrollCommand: RunsDefaults, DecodeLimitDefaults, OutDefaults {
    static let defaultRuns = 1
    static let maximumRuns = 100
    static let runsMeaning = "Runs of each combination, each in a fresh child process"
    static let runsDefaultWhy =
        "1 by default: one scroll is a long run of many rows, each row its own request and decode (run: 5, for the gate's test)."
    static let defaultMaxPixel = 256
    static let overDecodeBudget = "such rows fail"
    static var outHelp: String { OutputFiles.outHelp(.listScroll) }
}

import BenchCore
import Foundation
import TestSupport
import Testing

/// One way to say each thing on the command line: every list option takes repeated flags, commas
/// or both; every byte size follows one rule (k/M/G decimal, Ki/Mi/Gi binary, digits bytes); a
/// shared option keeps each command's default. In-process (`InProcessBench`: run and sweep with recorded
/// children), but for the scroll, whose children are its own.
@Suite(.serialized) struct OptionFormsTests {
    static let tinyRun = ["run", "--allocator", "system", "--runs", "1", "--width", "64", "--height", "48"]
    static let quickScroll = [
        "scenario", "list-scroll", "--rows", "4", "--visible", "2", "--speed", "1000", "--sizes", "64x48",
    ]

    /// Runs bench with `--out` in a scratch folder; returns the output and the folder (removed by the caller).
    /// In-process, but for the scroll (`scenario list-scroll`), a real `bench`.
    static func run(_ arguments: [String]) throws -> (output: CommandOutput, out: URL) {
        let out = TestFolder.temporary()
        let withOut = arguments + ["--out", out.path]
        let output = arguments.first == "scenario" ? try BenchProcess.run(withOut) : InProcessBench.run(withOut)
        return (output, out)
    }

    /// Parses and validates bench's arguments in-process, as `bench` does before measuring anything.
    static func refusal(_ arguments: [String]) -> CommandOutput {
        InProcessBench.parse(arguments + ["--out", TestFolder.temporary().path])
    }

    static func csvRows(_ url: URL) throws -> [[String: String]] {
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
    }

    /// sweep's --render takes several renderers, as commas and as repeated flags.
    @Test func sweepRenderTakesCommasAndRepeatedFlags() throws {
        let (output, out) = try Self.run([
            "sweep", "--strategy", "data", "--runs", "1", "--sizes", "0.05",
            "--render", "none,full", "--render", "thumbnail",
        ])
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(output.status == 0, "\(output.standardError.suffix(600))")
        let renders = try Self.csvRows(out.appendingPathComponent("sweep.csv")).compactMap { $0["render"] }
        #expect(renders.sorted() == ["full", "none", "thumbnail"], "\(renders)")
    }

    /// run's --render takes repeated flags and commas in one command line.
    @Test func runMixesBothForms() throws {
        let (output, out) = try Self.run(
            Self.tinyRun + ["--strategy", "data", "--render", "none", "--render", "full,thumbnail"]
        )
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(output.status == 0, "\(output.standardError.suffix(600))")
        let renders = try Self.csvRows(out.appendingPathComponent("trials.csv")).compactMap { $0["render"] }
        #expect(renders.sorted() == ["full", "none", "thumbnail"], "\(renders)")
    }

    /// list-scroll's --strategy takes repeated flags, and every flag's strategy is measured.
    @Test func scenarioTakesRepeatedFlags() throws {
        let (output, out) = try Self.run(
            Self.quickScroll + ["--render", "none", "--strategy", "data", "--strategy", "download"]
        )
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(output.status == 0, "\(output.standardError.suffix(600))")
        let strategies = try Self.csvRows(out.appendingPathComponent("list-scroll.csv")).compactMap { $0["strategy"] }
        #expect(strategies.sorted() == ["data", "download"], "\(strategies)")
    }

    /// A value named twice, whichever the forms, is a usage error naming it (each value is measured once).
    @Test(arguments: [
        ["run", "--strategy", "data,download", "--strategy", "data"],
        ["corpus", ".", "--render", "full", "--render", "thumbnail,full"],
        ["sweep", "--allocator", "system", "--render", "none,none"],
        ["run", "--allocator", "system", "--allocator", "system"],
        ["scenario", "list-scroll", "--render", "none", "--render", "thumbnail,none"],
    ])
    func aValueTwiceAcrossFormsIsAUsageError(arguments: [String]) {
        let output = Self.refusal(arguments)
        #expect(output.status == 64, "\(arguments): \(output.status) \(output.standardError.suffix(400))")
        #expect(output.standardError.contains("twice"), "\(arguments): \(output.standardError.prefix(400))")
    }

    /// An empty entry in a matrix list (`data,`) is a usage error that says the entry is empty,
    /// not that an unknown name was given, as in the scenario's lists.
    @Test(arguments: [
        ["run", "--strategy", "data,"], ["corpus", ".", "--allocator", ",system"], ["sweep", "--render", ""],
    ])
    func anEmptyEntryIsAUsageError(arguments: [String]) {
        let output = Self.refusal(arguments)
        #expect(output.status == 64, "\(arguments): \(output.status)")
        #expect(output.standardError.contains("empty"), "\(arguments): \(output.standardError.prefix(400))")
    }

    /// One byte-size rule, read back from what each option recorded: k/M/G decimal, Ki/Mi/Gi binary,
    /// digits bytes, letters in any case: 20M is 20,000,000 bytes and 20Mi 20 MiB on every option.
    @Test(arguments: [
        (
            ["--cache-limit", "20M", "--memory-limit", "200M", "--bandwidth", "20M"],
            ["20000000", "200000000", "20000000"]
        ),
        (
            ["--cache-limit", "20Mi", "--memory-limit", "200Mi", "--bandwidth", "20Mi"],
            ["20971520", "209715200", "20971520"]
        ),
        (
            ["--cache-limit", "1000", "--memory-limit", "1g", "--bandwidth", "500kib"],
            ["1000", "1000000000", "512000"]
        ),
    ])
    func scenarioByteSizesFollowOneRule(arguments: [String], expected: [String]) throws {
        let (output, out) = try Self.run(Self.quickScroll + ["--render", "none"] + arguments)
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(output.status == 0, "\(arguments): \(output.standardError.suffix(600))")
        let row = try #require(try Self.csvRows(out.appendingPathComponent("list-scroll.csv")).first)
        #expect(
            [row["cache_limit_bytes"], row["memory_limit_bytes"], row["bandwidth_bytes_per_second"]].map { $0 ?? "" }
                == expected,
            "\(arguments): \(row)"
        )
    }

    /// --holder-threshold follows the byte-size rule: 64k, 64Ki and plain digits.
    @Test(arguments: [("64k", 64_000), ("64Ki", 65_536), ("65536", 65_536)])
    func holderThresholdFollowsTheRule(value: String, bytes: Int) throws {
        let (output, out) = try Self.run(
            Self.tinyRun + ["--strategy", "data", "--render", "none", "--holder-threshold", value]
        )
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(output.status == 0, "\(value): \(output.standardError.suffix(600))")
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("trials.json")))
            as? [String: Any]
        let trials = try #require(json?["trials"] as? [[String: Any]])
        #expect(trials.compactMap { $0["holderThresholdBytes"] as? Int } == [bytes], "\(value): \(trials.first ?? [:])")
    }

    /// Out of range or not a size: exit 64, naming the option and the rule.
    @Test(arguments: [
        (["--cache-limit", "2Ti"], "--cache-limit"), (["--memory-limit", "15Mi"], "--memory-limit"),
        (["--bandwidth", "20Xi"], "--bandwidth"), (["--cache-limit", "i"], "--cache-limit"),
    ])
    func aBadByteSizeNamesTheRule(arguments: [String], option: String) {
        let output = Self.refusal(Self.quickScroll + arguments)
        #expect(output.status == 64, "\(arguments): \(output.status)")
        #expect(
            output.standardError.contains(option) && output.standardError.contains("Ki, Mi, Gi"),
            "\(output.standardError.prefix(400))"
        )
    }

    /// A shared option keeps each command's default, and its help says why that one.
    @Test(arguments: [
        ("run", "--runs", "5", "with 4 it cannot"), ("corpus", "--runs", "3", "a corpus has many images"),
        ("sweep", "--runs", "3", "fitted over every size"),
        ("scenario list-scroll", "--runs", "1", "one scroll is a long run"),
        ("run", "--max-pixel", "1024", "a detail view"), ("corpus", "--max-pixel", "1024", "a detail view"),
        ("scenario list-scroll", "--max-pixel", "256", "a list row"),
    ])
    func defaultsStayPerCommandAndSayWhy(command: String, option: String, value: String, why: String) throws {
        let output = InProcessBench.parse(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(output.status == 0)
        // ArgumentParser wraps help: join the option's lines up to the next option.
        let text = output.standardOutput.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        let start = try #require(
            text.range(of: "\(option) <", options: .backwards),
            "\(command): \(option) not in help"
        )
        let rest = text[start.upperBound...]
        let entry = rest.prefix(upTo: rest.range(of: " --")?.lowerBound ?? rest.endIndex)
        #expect(entry.contains("(default: \(value))"), "\(command) \(option): \(entry)")
        #expect(entry.contains(why), "\(command) \(option): \(entry)")
    }
}

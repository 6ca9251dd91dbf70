import BenchCore
import Foundation

/// `shard.json`: what a folder measured with `--shard i/n` needs for `bench merge` to join it with
/// its sibling shards: which shard, on which machine, by which harness and libraries, with which
/// settings (every option that changes a figure, by its option name), and for a corpus the whole
/// corpus's size and digest (so shards of two different corpora are not joined). It also says
/// whether the shard is whole: the rows it plans (written before its first trial) and, once it
/// stops, the rows it completed and how it ended (a shard killed by SIGKILL never says).
package struct ShardRecord: Codable, Sendable, Equatable {
    package static let fileName = "shard.json"
    /// Bumped when what a trial measures changes, so shards of two versions are not joined.
    package static let harnessVersion = "bench results 1"

    package enum Kind: String, Codable, Sendable {
        case run, corpus
        /// `bench scenario image-server`.
        case server

        /// The rows file that marks the folder's kind.
        package var rowsFile: String {
            switch self {
            case .run: TrialsCSV.fileName
            case .corpus: "corpus.csv"
            case .server: "server.csv"
            }
        }
    }

    package var kind: Kind
    /// "i/n".
    package var shard: String
    /// The host name of the machine that measured.
    package var machine: String
    package var harness: String
    /// The commit bench was built from, when the environment says (GITHUB_SHA in GitHub Actions, or BENCH_COMMIT).
    package var commit: String?
    /// The GNU build ID of the bench binary that measured (`ExecutableBuildID`): what names the
    /// binary when no commit does.
    package var build: String?
    package var runID: String
    package var settings: [String: String]
    /// The measured libraries and toolchain (environment.txt's version lines): decoders of another
    /// version are another measurement.
    package var libraries: [String: String]
    package var corpusEntries: Int?
    package var corpusDigest: String?
    /// The rows the shard plans and an order-free digest of their keys (`PlannedKeys`); absent
    /// until the plan is known (a corpus stopped while its files were examined never knows it).
    package var plannedRows: Int?
    package var plannedKeysDigest: String?
    /// Rows in the folder when the shard stopped, and how it stopped: `finished`, or the signal
    /// ("SIGTERM"). Both absent while it runs, and after a kill that let it say nothing.
    package var completedRows: Int?
    package var ended: String?

    /// `ended` of a shard that ran to its end (its rows may still include failed runs).
    package static let finished = "finished"

    package init(
        kind: Kind,
        shard: Shard,
        runID: String,
        settings: [String: String],
        corpusEntries: Int? = nil,
        corpusDigest: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.kind = kind
        self.shard = shard.description
        machine = ProcessInfo.processInfo.hostName
        harness = Self.harnessVersion
        commit =
            environment["BENCH_COMMIT"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["GITHUB_SHA"].flatMap { $0.isEmpty ? nil : $0 }
        build = ExecutableBuildID.current
        self.runID = runID
        self.settings = settings
        libraries = Self.libraries(MachineEnvironment.describe(nil))
        self.corpusEntries = corpusEntries
        self.corpusDigest = corpusDigest
    }

    /// Records the plan (before the first trial): nothing completed, no end yet.
    package mutating func plan(_ keys: PlannedKeys) {
        plannedRows = keys.count
        plannedKeysDigest = keys.digestText
        completedRows = nil
        ended = nil
    }

    /// Records the stop: the rows in the folder and the signal that stopped it, if one did.
    package mutating func end(completedRows: Int, signal: String?) {
        self.completedRows = completedRows
        ended = signal ?? Self.finished
    }

    /// The parsed shard; nil when the file holds something else.
    package var parsedShard: Shard? { Shard(shard) }

    /// The lines of environment.txt that name versions (not the CPU, memory, OS or kernel, which
    /// machines of one CI pool may differ in without changing what a decoder allocates).
    static func libraries(_ environment: String) -> [String: String] {
        let names: Set = ["swift", "glibc", "jemalloc", "libcurl", "libjpeg-turbo", "libpng", "libwebp", "libheif"]
        var found: [String: String] = [:]
        for line in environment.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            if names.contains(name) { found[name] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return found
    }

    package func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.writeInFolder(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }

    package enum ReadError: Error, CustomStringConvertible {
        case notSharded(folder: String)
        case malformed(path: String, problem: String)

        package var description: String {
            switch self {
            case .notSharded(let folder):
                return
                    "\(folder) has no \(ShardRecord.fileName): it is not a folder written with --shard i/n (or not a results folder)"
            case .malformed(let path, let problem): return "\(path) is not a shard record: \(problem)"
            }
        }
    }

    package static func read(in folder: URL) throws(ReadError) -> ShardRecord {
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .notSharded(folder: folder.path) }
        let record: ShardRecord
        do { record = try JSONDecoder().decode(ShardRecord.self, from: data) } catch {
            throw .malformed(path: url.path, problem: String(describing: error))
        }
        guard record.parsedShard != nil else {
            throw .malformed(path: url.path, problem: "shard '\(record.shard)' is not i/n")
        }
        return record
    }
}

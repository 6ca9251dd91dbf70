import ArgumentParser
import BenchCore
import Corpus
import Foundation
import Measuring
import Report

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the folders of `--shard i/n` runs (run, corpus or image-server) into one results folder.",
        discussion: """
            Each folder must hold a shard.json (written by `bench run` or `bench corpus` with --shard). The \
            folders must be of one kind, one shard count, one harness and library versions, the same settings \
            and, for a corpus, the same files; each shard once, and all of them, each complete: every row its \
            shard.json plans, and no live run still writing it (--partial merges what there is). \
            Run and corpus rows are joined with a machine column (the host that measured each), then the merged folder \
            gets what one run writes: for runs trials.csv, timeline.csv, summary.csv, trials.json, holders, \
            environment.txt, REPORT.md and the chart data (as `bench report` writes them); for a corpus corpus.csv, \
            corpus-summary.csv and the chart data; for an image server server.csv, requests.csv, \
            server-holders.csv, server-residency.csv and server-slopes.csv (each cell's slope from its one shard). \
            merge.json names the shards and machines.

            Examples:
              bench merge shard-1 shard-2 shard-3 shard-4 --out merged
              bench merge artifacts/shard-* --out merged --partial

            Exit status: 0 merged; 6 the folders are not shards of one measurement (each difference named: \
            settings, harness, libraries, corpus, shard count, a shard given twice); 7 a shard is missing, \
            incomplete or still being written (each named, with the rows it lacks; nothing written, unless --partial); 64 bad command-line input; 65 a folder's shard.json or \
            rows are malformed, or it has no shard.json; 66 a folder or its rows file does not exist; 73/75 \
            the --out folder cannot be written or is in use.
            """
    )

    @Argument(help: ArgumentHelp("The shard folders (each written with --shard i/n).", valueName: "folder"))
    var folders: [String] = []

    @Option(help: "Folder for the merged results.")
    var out: String

    @OptionGroup var replacing: ReplaceOption<MergeCommand>
    var replace: Bool { replacing.replace }

    @Flag(
        help:
            "Merge even when some shards are missing or incomplete (they are named on stderr and in merge.json, with the rows they lack); the result then covers only part of the work."
    )
    var partial = false

    func validate() throws {
        guard !folders.isEmpty else {
            throw ValidationError("give the shard folders to merge, e.g. bench merge shard-1 shard-2 --out merged")
        }
        try OutOption.validate(out, instead: "the folder for the merged results")
        let target = URL(fileURLWithPath: out).standardizedFileURL.resolvingSymlinksInPath().path
        for folder in folders
        where URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path == target {
            throw ValidationError(
                "--out \(out) is one of the folders to merge; choose a new folder for the merged results"
            )
        }
    }

    func run() throws {
        var shards: [ShardFolder] = []
        for path in folders {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw BenchFailure(
                    .noInput,
                    "\(path) is not a folder; give the folders that `bench run` or `bench corpus` wrote with --shard"
                ).reported()
            }
            do {
                shards.append(
                    try ShardFolder(
                        path: path,
                        record: ShardRecord.read(in: URL(fileURLWithPath: path, isDirectory: true))
                    )
                )
            } catch {
                throw BenchFailure(.badInput, error.description).reported()
            }
        }
        shards.sort { $0.shard.index < $1.shard.index }
        let missing: [Int]
        do { missing = try ShardMerge.missingShards(shards) } catch {
            throw BenchFailure(.shardsDiffer, "cannot merge: \(error.description)").reported()
        }
        let count = shards[0].shard.count
        let kind = shards[0].record.kind

        // Every input read and checked before --out is created: a refusal leaves nothing behind.
        var runShards: [ShardedRunMerge.RunShard] = []
        var corpusShards: [ShardedCorpusMerge.CorpusShardRows] = []
        var serverShards: [ShardedServerMerge.ServerShard] = []
        var incomplete: [IncompleteShard] = []
        var heldBy: [String: String] = [:]
        do throws(MergeInputError) {
            for shard in shards {
                let keys: Set<String>
                switch kind {
                case .run:
                    runShards.append(try ShardedRunMerge.read(shard))
                    keys = runShards[runShards.count - 1].keys
                case .corpus:
                    corpusShards.append(try ShardedCorpusMerge.read(shard))
                    keys = corpusShards[corpusShards.count - 1].keys
                case .server:
                    serverShards.append(try ShardedServerMerge.read(shard))
                    keys = serverShards[serverShards.count - 1].keys
                }
                // Overlapping shards would count a run twice: each key in one shard only.
                let name = "shard \(shard.record.shard) (\(shard.path))"
                if let shared = keys.first(where: { heldBy[$0] != nil }), let other = heldBy[shared] {
                    let key = shared.replacingOccurrences(of: "\n", with: " ")
                        .replacingOccurrences(of: "#", with: " run ")
                    throw MergeInputError(
                        missing: false,
                        "cannot merge: \(other) and \(name) both hold \(key): "
                            + "the shards overlap, so a run would count twice"
                    )
                }
                for key in keys { heldBy[key] = name }
                if let lack = try shard.incompleteness(keys: keys) { incomplete.append(lack) }
            }
        } catch {
            throw BenchFailure(error.isMissing ? .noInput : .badInput, error.description).reported()
        }

        var refusals: [String] = []
        if !missing.isEmpty {
            // The first few by name, the rest counted: one shard of 10000 misses 9999.
            let shown = 20
            let named =
                missing.prefix(shown).map { "\($0)/\(count)" }.joined(separator: ", ")
                + (missing.count > shown ? " and \(missing.count - shown) more" : "")
            let shardsWord = missing.count == 1 ? "shard" : "shards"
            refusals.append("\(shardsWord) \(named) missing (\(shards.count) of \(count) given)")
        }
        refusals += incomplete.map(\.description)
        let missingRows = incomplete.compactMap(\.missingRows).reduce(0, +)
        if !refusals.isEmpty {
            guard partial else {
                throw BenchFailure(
                    .shardsMissing,
                    "cannot merge: " + refusals.joined(separator: "; ")
                        + "; give every shard's folder, complete (--resume finishes a stopped one), "
                        + "or add --partial to merge what there is"
                ).reported()
            }
            for refusal in refusals { printError("warning: \(refusal)") }
            if !incomplete.isEmpty {
                let unknown = incomplete.contains { $0.missingRows == nil } ? " (and an unknown number more)" : ""
                let rows = missingRows == 1 ? "row" : "rows"
                let of = incomplete.count == 1 ? "shard" : "shards"
                printError(
                    "warning: the merged results lack \(missingRows) \(rows)\(unknown) "
                        + "of \(incomplete.count) incomplete \(of); merge.json records them"
                )
            }
            if !missing.isEmpty {
                printError("warning: the merged results cover \(shards.count) of \(count) shards")
            }
        }

        let outputs: [OutputFolder.File] =
            switch kind {
            case .run: OutputFiles.folderFiles(.run)
            case .corpus: [OutputFiles.corpus, OutputFiles.corpusSummary].map(\.folderFile)
            case .server:
                [
                    OutputFiles.server, OutputFiles.requests, OutputFiles.serverHolders, OutputFiles.serverResidency,
                    OutputFiles.serverSlopes,
                ].map(\.folderFile)
            }
        let owner =
            switch kind {
            case .run: "run"
            case .corpus: "corpus"
            case .server: MeasuringCommand.imageServer.rawValue
            }
        let folder = try measuringFailure {
            // A merged run shard is a run's folder, a merged corpus a corpus's, a merged server an
            // image-server's: never written over another command's.
            try FolderOwnership.claim(
                URL(fileURLWithPath: out, isDirectory: true),
                for: owner,
                replacing: replace
            )
            return try MeasurementFolder.openOutput(
                out,
                files: outputs + [OutputFolder.File(MergeRecord.fileName, replacesRows: false)],
                replacing: replace
            )
        }
        do {
            switch kind {
            case .run:
                try ShardedRunMerge.merge(
                    runShards,
                    into: folder,
                    command: GivenArguments.current.joined(separator: " ")
                )
            case .corpus: print(try ShardedCorpusMerge.merge(corpusShards, into: folder))
            case .server: ServerMeasurement.printSlopes(try ShardedServerMerge.merge(serverShards, into: folder))
            }
            try MergeRecord(shards: shards, missing: missing, incomplete: incomplete).write(in: folder.directory)
        } catch let error as MergeInputError {
            throw BenchFailure(error.isMissing ? .noInput : .badInput, error.description).reported()
        } catch let error as ReportError {
            throw BenchFailure(error.isMissingInput ? .noInput : .badInput, error.description).reported()
        } catch let error as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, error.description).reported()
        }
        print(
            "merged \(shards.count) shard\(shards.count == 1 ? "" : "s") of \(count) into \(folder.directory.path)"
                + (incomplete.isEmpty ? "" : ", \(incomplete.count) of them incomplete (\(missingRows) rows missing)")
        )
    }
}

/// `merge.json`: which shards, from which folders and machines, a merged folder joins.
struct MergeRecord: Codable {
    static let fileName = FolderOwnership.mergeRecordFileName
    struct Part: Codable {
        var shard: String
        var machine: String
        var folder: String
        var runID: String
    }
    var kind: ShardRecord.Kind
    var shards: [Part]
    var missing: [String]
    /// Rows the incomplete shards lack (those whose plan is known), and those shards (--partial).
    var missingRows: Int
    var incompleteShards: [IncompleteShard]
    var settings: [String: String]

    init(shards: [ShardFolder], missing: [Int], incomplete: [IncompleteShard]) {
        kind = shards[0].record.kind
        self.shards = shards.map {
            Part(shard: $0.record.shard, machine: $0.record.machine, folder: $0.path, runID: $0.record.runID)
        }
        self.missing = missing.map { "\($0)/\(shards[0].shard.count)" }
        missingRows = incomplete.compactMap(\.missingRows).reduce(0, +)
        incompleteShards = incomplete
        settings = shards[0].record.settings
    }

    func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.writeInFolder(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }
}

extension MergeCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier run's files" }
}

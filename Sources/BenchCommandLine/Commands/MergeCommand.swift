import ArgumentParser
import BenchCore
import Corpus
import Foundation
import Report

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the folders of `--shard i/n` runs (run or corpus) into one results folder.",
        discussion: """
        Each folder must hold a shard.json (written by `bench run` or `bench corpus` with --shard). The \
        folders must be of one kind, one shard count, one harness and library versions, the same settings \
        and, for a corpus, the same files; each shard once, and all of them (--partial merges what there is). \
        The rows are joined with a machine column (the host that measured each), then the merged folder \
        gets what one run writes: for runs trials.csv, timeline.csv, summary.csv, trials.json, holders, \
        environment.txt, REPORT.md and the chart data (as `bench report` writes them); for a corpus corpus.csv, \
        corpus-summary.csv and the chart data. merge.json names the shards and machines.

        Examples:
          bench merge shard-1 shard-2 shard-3 shard-4 --out merged
          bench merge artifacts/shard-* --out merged --partial

        Exit status: 0 merged; 6 the folders are not shards of one measurement (each difference named: \
        settings, harness, libraries, corpus, shard count, a shard given twice); 7 a shard is missing \
        (named; nothing written, unless --partial); 64 bad command-line input; 65 a folder's shard.json or \
        rows are malformed, or it has no shard.json; 66 a folder or its rows file does not exist; 73/75 \
        the --out folder cannot be written or is in use.
        """)

    @Argument(help: ArgumentHelp("The shard folders (each written with --shard i/n).", valueName: "folder"))
    var folders: [String] = []

    @Option(help: "Folder for the merged results.")
    var out: String

    @OptionGroup var replacing: ReplaceOption<MergeCommand>
    var replace: Bool { replacing.replace }

    @Flag(help: "Merge even when some shards are missing (they are named on stderr and in merge.json); the result then covers only part of the work.")
    var partial = false

    func validate() throws {
        guard !folders.isEmpty else { throw ValidationError("give the shard folders to merge, e.g. bench merge shard-1 shard-2 --out merged") }
        try OutOption.validate(out, instead: "the folder for the merged results")
        let target = URL(fileURLWithPath: out).standardizedFileURL.resolvingSymlinksInPath().path
        for folder in folders where URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path == target {
            throw ValidationError("--out \(out) is one of the folders to merge; choose a new folder for the merged results")
        }
    }

    func run() throws {
        var shards: [ShardFolder] = []
        for path in folders {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw BenchFailure(.noInput, "\(path) is not a folder; give the folders that `bench run` or `bench corpus` wrote with --shard").reported()
            }
            do {
                shards.append(try ShardFolder(path: path, record: ShardRecord.read(in: URL(fileURLWithPath: path, isDirectory: true))))
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
        if !missing.isEmpty {
            // The first few by name, the rest counted: one shard of 10000 misses 9999.
            let shown = 20
            let named = missing.prefix(shown).map { "\($0)/\(count)" }.joined(separator: ", ")
                + (missing.count > shown ? " and \(missing.count - shown) more" : "")
            guard partial else {
                throw BenchFailure(.shardsMissing, "cannot merge: shard\(missing.count == 1 ? "" : "s") \(named) missing (\(shards.count) of \(count) given); "
                                   + "give every shard's folder, or add --partial to merge only these").reported()
            }
            printError("warning: shard\(missing.count == 1 ? "" : "s") \(named) missing: the merged results cover \(shards.count) of \(count) shards")
        }
        let kind = shards[0].record.kind
        let outputs = kind == .run ? RunCommand.outputFiles : [OutputFolder.File("corpus.csv"), OutputFolder.File("corpus-summary.csv")]
        let folder = try RunCommand.openOutput(out, files: outputs + [OutputFolder.File(MergeRecord.fileName, replacesRows: false)], replacing: replace)
        do {
            switch kind {
            case .run: try ShardedRunMerge.merge(shards, into: folder, command: CommandLine.arguments.joined(separator: " "))
            case .corpus: print(try ShardedCorpusMerge.merge(shards, into: folder))
            }
            try MergeRecord(shards: shards, missing: missing).write(in: folder.directory)
        } catch let error as MergeInputError {
            throw BenchFailure(error.isMissing ? .noInput : .badInput, error.description).reported()
        } catch let error as ReportError {
            throw BenchFailure(error.isMissingInput ? .noInput : .badInput, error.description).reported()
        } catch let error as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, error.description).reported()
        }
        print("merged \(shards.count) shard\(shards.count == 1 ? "" : "s") of \(count) into \(folder.directory.path)")
    }
}

/// `merge.json`: which shards, from which folders and machines, a merged folder joins.
struct MergeRecord: Codable {
    static let fileName = "merge.json"
    struct Part: Codable {
        var shard: String
        var machine: String
        var folder: String
        var runID: String
    }
    var kind: ShardRecord.Kind
    var shards: [Part]
    var missing: [String]
    var settings: [String: String]

    init(shards: [ShardFolder], missing: [Int]) {
        kind = shards[0].record.kind
        self.shards = shards.map { Part(shard: $0.record.shard, machine: $0.record.machine, folder: $0.path, runID: $0.record.runID) }
        self.missing = missing.map { "\($0)/\(shards[0].shard.count)" }
        settings = shards[0].record.settings
    }

    func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }
}

extension MergeCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier run's files" }
}

import BenchCore
import Corpus
import Foundation
import Report
import Scenarios

/// The commands that measure into a folder.
package enum MeasuringCommand: String, CaseIterable, Sendable, Encodable {
    case run, sweep, corpus
    case listScroll = "list-scroll"
    case imageServer = "image-server"

    /// Whether its folder is its own: another command writing there is refused (73). list-scroll
    /// appends to list-scroll.csv wherever it is asked to, by design (the settings.json it records
    /// in a folder that had none says the folder's format, not an owner).
    package var ownsItsFolder: Bool { self != .listScroll }
}

/// One file a measuring command writes into its folder, defined once. From these definitions come
/// the lists that `--replace`, the folder's check before the first trial, folder ownership and
/// `bench merge` use, `bench list --output-files`, and docs/OUTPUT.md's table.
package struct OutputFile: Sendable, Encodable {
    /// When the file is written.
    package enum Written: String, Sendable, Encodable {
        case beforeTheFirstTrial = "before the first trial"
        case perTrial = "appended as each trial ends"
        case perScroll = "appended as each scroll ends"
        case perServerRun = "appended as each server run ends"
        case atTheEnd = "at the end, and on SIGINT, SIGTERM or SIGHUP"
    }

    package var name: String
    /// The commands that write it.
    package var commands: [MeasuringCommand]
    package var written: Written
    /// The columns that make a row unique, which every reader checks; empty for a file without
    /// keyed rows.
    package var key: [String]
    /// Whether an earlier run's copy holds rows that a new run would lose: refused without
    /// `--replace`. False for a file rewritten whole each time or appended to across runs.
    package var replacesRows: Bool
    /// What it holds, in one sentence.
    package var holds: String
    /// A CSV file's header, in order, when it is fixed (empty: not a CSV, or its columns vary).
    package var columns: [String] = []
    /// Its columns as declared once (`TrialsCSV.columns`, `WrittenColumn`): unit, polarity, meaning.
    package var figures: [ResultColumn] = []
    /// Its name in folders of the previous format (`ResultsFormat.previous`), when it had another:
    /// read there, never written.
    package var previousName: String?

    /// What `bench list --output-files --json` gives of it (not `replacesRows`, the folder's business).
    enum CodingKeys: String, CodingKey {
        case name, commands, written, key, holds, columns, figures, previousName
    }

    /// The file as the output folder's checks see it.
    package var folderFile: OutputFolder.File { OutputFolder.File(name, replacesRows: replacesRows) }
}

/// Every output file of the measuring commands. Adding a file is one definition here and its place
/// in `all`; the file's writer is its command's measurement.
package enum OutputFiles {
    package static let trials = OutputFile(
        name: TrialsCSV.fileName,
        commands: [.run],
        written: .perTrial,
        key: TrialsCSV.keyColumns,
        replacesRows: true,
        holds: "one row per trial: its cell, status, peaks over the baseline, timings and largest holder",
        columns: TrialsCSV.columns.map(\.name) + [TrialsCSV.runIDColumn],
        figures: TrialsCSV.columns.map(\.column)
    )
    package static let timeline = OutputFile(
        name: TimelineCSV.fileName,
        commands: [.run],
        written: .perTrial,
        key: TrialsCSV.keyColumns + ["t_s"],
        replacesRows: true,
        holds: "every memory sample of every trial, for charts",
        columns: TimelineCSV.header + [TrialsCSV.runIDColumn]
    )
    package static let holders = OutputFile(
        name: HoldersCSV.fileName,
        commands: [.run],
        written: .perTrial,
        key: TrialsCSV.keyColumns + ["rank"],
        replacesRows: true,
        holds: "who holds each trial's exact heap peak: one row per call stack holding blocks of "
            + "--holder-threshold bytes or more, then the small blocks; a trial's rows add up to its exact heap peak",
        columns: HoldersCSV.header
    )
    package static let residency = OutputFile(
        name: ResidencyCSV.fileName,
        commands: [.run],
        written: .perTrial,
        key: TrialsCSV.keyColumns + ["moment", "category"],
        replacesRows: true,
        holds: "each trial's resident memory over the baseline at the RSS peak and at the window's end, by category "
            + "(heap holders, small blocks, kept by the allocator, thread stacks, file-backed, other, unattributed)",
        columns: ResidencyCSV.header
    )
    package static let summary = OutputFile(
        name: SummaryCSV.fileName,
        commands: [.run],
        written: .atTheEnd,
        key: ["strategy", "render", "allocator"],
        replacesRows: true,
        holds: "one row per cell: medians, confidence interval, spread and the article's figure"
    )
    package static let trialsJSON = OutputFile(
        name: JSONExport.fileName,
        commands: [.run],
        written: .atTheEnd,
        key: [],
        replacesRows: true,
        holds: "the rows with the run's context: machine, kernel, command, sampling, trials planned and done, "
            + "and the binary's build, commit, toolchain and libraries"
    )
    package static let holdersFolded = OutputFile(
        name: HoldersFolded.fileName,
        commands: [.run],
        written: .atTheEnd,
        key: [],
        replacesRows: true,
        holds: "the holders as folded stacks weighted by bytes, for any flame-graph tool"
    )
    package static let environment = OutputFile(
        name: ResultsWriter.environmentFileName,
        commands: MeasuringCommand.allCases,
        written: .atTheEnd,
        key: [],
        replacesRows: false,
        holds: "the binary's build and commit, CPU, memory, OS, toolchain and the measured libraries' versions"
    )
    package static let sweep = OutputFile(
        name: SweepCSV.fileName,
        commands: [.sweep],
        written: .perTrial,
        key: SweepCSV.keyColumns,
        replacesRows: true,
        holds: "one row per trial at each payload size: the size, then trials.csv's columns"
    )
    package static let corpus = OutputFile(
        name: CorpusCSV.fileName,
        commands: [.corpus],
        written: .perTrial,
        key: CorpusCSV.keyColumns,
        replacesRows: true,
        holds: "one row per image and trial, and one for each file not measured, with its reason",
        columns: CorpusCSV.header,
        figures: CorpusCSV.columns.map(\.column)
    )
    package static let corpusSummary = OutputFile(
        name: "corpus-summary.csv",
        commands: [.corpus],
        written: .atTheEnd,
        key: ["file"],
        replacesRows: true,
        holds: "each image's cost: its medians per renderer, ranked"
    )
    package static let corpusChart = OutputFile(
        name: "charts/data/corpus.dat",
        commands: [.corpus],
        written: .atTheEnd,
        key: [],
        replacesRows: true,
        holds: "the corpus chart's data"
    )
    package static let corpusChartVariables = OutputFile(
        name: "charts/data/vars.gp",
        commands: [.corpus],
        written: .atTheEnd,
        key: [],
        replacesRows: false,
        holds: "the corpus chart's labels"
    )
    package static let listScroll = OutputFile(
        name: ListScrollCSV.fileName,
        commands: [.listScroll],
        written: .perScroll,
        key: [],
        replacesRows: false,
        holds: "one row per scroll, appended after the rows of earlier invocations with other settings",
        columns: ListScrollCSV.headerFields,
        figures: ListScrollCSV.columns.map(\.column),
        previousName: ListScrollCSV.previousFileName
    )
    package static let server = OutputFile(
        name: ServerCSV.fileName,
        commands: [.imageServer],
        written: .perServerRun,
        key: ServerCSV.keyColumns,
        replacesRows: true,
        holds: "one row per image-server cell and run: the load, the peaks over the warmed-up server's baseline, "
            + "the requests by stage at the heap peak, the floor, throughput and latency",
        columns: WrittenColumn.header(ServerCSV.columns, runID: true),
        figures: ServerCSV.columns.map(\.column)
    )
    package static let requests = OutputFile(
        name: RequestsCSV.fileName,
        commands: [.imageServer],
        written: .perServerRun,
        key: ServerCSV.keyColumns + ["request"],
        replacesRows: true,
        holds: "every request of the image server's load: status, bytes and latency",
        columns: WrittenColumn.header(RequestsCSV.columns, runID: true),
        figures: RequestsCSV.columns.map(\.column)
    )
    package static let serverHolders = OutputFile(
        name: ServerHoldersCSV.fileName,
        commands: [.imageServer],
        written: .perServerRun,
        key: ServerCSV.keyColumns + ["rank"],
        replacesRows: true,
        holds: "who held the exact heap at each server run's peak: blocks of "
            + "\(TrialSpec.defaultHolderThresholdBytes / 1024) KiB and over by allocating stack, largest first, with roles",
        columns: WrittenColumn.header(ServerHoldersCSV.columns, runID: true),
        figures: ServerHoldersCSV.columns.map(\.column)
    )
    package static let serverResidency = OutputFile(
        name: ServerResidencyCSV.fileName,
        commands: [.imageServer],
        written: .perServerRun,
        key: ServerCSV.keyColumns + ["moment", "category"],
        replacesRows: true,
        holds: "each server run's RSS at its RSS peak and at its end, broken into categories over the baseline",
        columns: WrittenColumn.header(ServerResidencyCSV.columns, runID: true),
        figures: ServerResidencyCSV.columns.map(\.column)
    )
    package static let serverSlopes = OutputFile(
        name: ServerSlopesCSV.fileName,
        commands: [.imageServer],
        written: .atTheEnd,
        key: ["strategy", "render", "allocator", "route", "body", "render_threads"],
        replacesRows: true,
        holds: "per cell across concurrencies: memory per request in flight and the fixed cost, with their 95% "
            + "intervals, and the requests in flight that fit 512 MB, 1 GB and 2 GB",
        columns: WrittenColumn.header(ServerSlopesCSV.columns, runID: true),
        figures: ServerSlopesCSV.columns.map(\.column)
    )
    package static let settings = OutputFile(
        name: RunSettings.fileName,
        commands: [.run, .sweep, .corpus, .listScroll, .imageServer],
        written: .beforeTheFirstTrial,
        key: [],
        replacesRows: false,
        holds: "the folder's format, the command and every setting that changes a figure (--resume checks them "
            + "and the build; list-scroll's rows carry their own), and the binary's build, commit, toolchain and libraries"
    )
    package static let shard = OutputFile(
        name: ShardRecord.fileName,
        commands: [.run, .corpus, .imageServer],
        written: .beforeTheFirstTrial,
        key: [],
        replacesRows: false,
        holds: "with --shard: the shard, machine, commit, build, settings and planned rows, then how it ended"
    )

    /// Every definition, in the order the documentation lists them.
    package static let all = [
        trials, timeline, holders, residency, summary, trialsJSON, holdersFolded, environment, sweep,
        corpus, corpusSummary, corpusChart, corpusChartVariables, listScroll, server, requests, serverHolders,
        serverResidency,
        serverSlopes,
        settings, shard,
    ]

    /// The files `command` writes itself (settings.json and shard.json, which the folder's opening
    /// and the shard record write, are not among them).
    package static func of(_ command: MeasuringCommand) -> [OutputFile] {
        all.filter { $0.commands.contains(command) && $0.written != .beforeTheFirstTrial }
    }

    /// The folder's check before the first trial: `command`'s files.
    package static func folderFiles(_ command: MeasuringCommand) -> [OutputFolder.File] {
        of(command).map(\.folderFile)
    }

    /// "Folder for a.csv, b.csv and c.txt": the --out help of `command`.
    package static func outHelp(_ command: MeasuringCommand) -> String {
        let names = of(command).map(\.name)
        let listed = names.count > 1 ? names.dropLast().joined(separator: ", ") + " and " + names.last! : names.joined()
        return "Folder for \(listed) (default: a new runs/<UTC time>/)."
    }

    /// The name of docs/OUTPUT.md's generated block (`<!-- table:output-files -->`).
    package static let tableName = "output-files"

    /// The name of docs/OUTPUT.md's table of trials.csv's columns (`<!-- table:trials-columns -->`).
    package static let trialsColumnsTableName = "trials-columns"

    /// The names of docs/OUTPUT.md's tables of the image server's files' columns.
    package static let serverColumnsTableName = "server-columns"
    package static let serverSlopesColumnsTableName = "server-slopes-columns"
    /// The name of docs/OUTPUT.md's table of list-scroll.csv's columns.
    package static let listScrollColumnsTableName = "list-scroll-columns"

    /// The name of docs/OUTPUT.md's table of corpus.csv's columns.
    package static let corpusColumnsTableName = "corpus-columns"

    /// docs/OUTPUT.md's blocks that come from the code rather than results/: every file, and the
    /// columns of trials.csv, list-scroll.csv, server.csv, server-slopes.csv and corpus.csv as their
    /// declarations say them.
    package static var documentBlocks: [String: String] {
        [
            tableName: markdownTable(),
            trialsColumnsTableName: ResultColumn.markdownTable(TrialsCSV.columns.map(\.column)),
            listScrollColumnsTableName: ResultColumn.markdownTable(ListScrollCSV.columns.map(\.column)),
            serverColumnsTableName: ResultColumn.markdownTable(ServerCSV.columns.map(\.column)),
            serverSlopesColumnsTableName: ResultColumn.markdownTable(ServerSlopesCSV.columns.map(\.column)),
            corpusColumnsTableName: ResultColumn.markdownTable(CorpusCSV.columns.map(\.column)),
        ]
    }

    /// Every file as JSON, for scripts (`bench list --output-files --json`): the Python scripts read
    /// the columns of the files they copy rows from here, never from a list of their own.
    package static func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(all), as: UTF8.self) + "\n"
    }

    /// The Markdown table of every file, for docs/OUTPUT.md and `bench list --output-files`.
    package static func markdownTable() -> String {
        var lines = ["| file | commands | written | key | what |", "|---|---|---|---|---|"]
        for file in all {
            let commands = file.commands.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            let key = file.key.isEmpty ? "" : file.key.map { "`\($0)`" }.joined(separator: ", ")
            lines.append("| `\(file.name)` | \(commands) | \(file.written.rawValue) | \(key) | \(file.holds) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

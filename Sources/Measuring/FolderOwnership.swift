import Foundation
import Report

/// Which measuring command a results folder belongs to, so that one command never writes into
/// another's folder: `bench corpus --out <a stopped run's folder>` would replace the run's
/// settings.json, and the run could never be resumed.
package enum FolderOwnership {
    /// Each measuring command's files: its rows file first, by which an older folder without
    /// settings.json is known (a file other commands write too, environment.txt, never first: a
    /// list scroll's folder holds one and is no sweep's).
    package static var files: [(command: String, names: [String])] {
        MeasuringCommand.allCases.filter(\.ownsItsFolder).map { command in
            let files = OutputFiles.of(command)
            let own = files.filter { $0.commands == [command] } + files.filter { $0.commands != [command] }
            return (command.rawValue, own.map(\.name))
        }
    }

    /// `bench merge`'s record of the shards it joined.
    package static let mergeRecordFileName = "merge.json"

    /// Written by every measuring command (or by merge), removed with the owner's files.
    package static let sharedFiles = [RunSettings.fileName, ShardRecord.fileName, mergeRecordFileName]

    /// What `bench report` and `make plots` add to a folder (its REPORT.md, chart data and charts):
    /// the other command's too, removed with its files so that no chart of it is taken for this run's.
    package static var reportFiles: [String] {
        let charts = ["article", "matrix", "timeline", "sweep", "holders", "encodings", "corpus", "list-scroll"]
        return ["REPORT.md"] + charts.flatMap { ["charts/\($0).svg", "charts/\($0).png"] }
            + (RunFolderReport.chartFileNames.union(["corpus.dat"])).sorted().map { "charts/data/\($0)" }
    }

    /// The command whose folder `directory` is: settings.json's, else the one whose rows file is there.
    /// A command that does not own its folder (list-scroll, whose settings.json only says the
    /// folder's format) is no owner.
    package static func owner(of directory: URL) -> String? {
        if let recorded = try? RunSettings.read(from: directory),
            MeasuringCommand(rawValue: recorded.command)?.ownsItsFolder != false
        {
            return recorded.command
        }
        return files.first { entry in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(entry.names[0]).path)
        }?.command
    }

    /// Refuses (73) a folder of another command; with `replacing`, removes that command's files
    /// first (every one, so that no file of it is left to be mistaken for this run's).
    package static func claim(_ directory: URL, for command: String, replacing: Bool) throws {
        guard let owner = owner(of: directory), owner != command else { return }
        let names = (files.first { $0.command == owner }?.names ?? []) + sharedFiles + reportFiles
        let present = names.filter { name in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
        }
        guard replacing else {
            let files = present.joined(separator: ", ")
            throw BenchFailure(
                .cannotCreateOutput,
                "--out \(directory.path) is a `bench \(owner)` folder (\(files)); `bench \(command)` "
                    + "would replace its files and a stopped run there could not be resumed; choose "
                    + "another --out, or add --replace to remove that run's files first"
            )
        }
        for name in present {
            // unlink, not removeItem: a link is removed, never what it points to.
            let path = directory.appendingPathComponent(name).path
            guard unlink(path) == 0 || errno == ENOENT else {
                throw BenchFailure(
                    .cannotCreateOutput,
                    "--replace: cannot remove \(name) of the `bench \(owner)` "
                        + "run in "
                        + "\(directory.path): \(String(cString: strerror(errno)))"
                )
            }
        }
        printError(
            "--replace: removed the `bench \(owner)` files of \(directory.path): "
                + present.joined(separator: ", ")
        )
    }
}

import BenchCore
import Foundation

/// A folder given to `bench merge`, with its shard record.
package struct ShardFolder: Sendable {
    package var path: String
    package var record: ShardRecord
    package var shard: Shard

    package init(path: String, record: ShardRecord) throws(ShardRecord.ReadError) {
        guard let shard = record.parsedShard else {
            throw .malformed(path: path, problem: "shard '\(record.shard)' is not i/n")
        }
        self.path = path
        self.record = record
        self.shard = shard
    }
}

/// Whether shard folders are parts of one measurement: the same kind, shard count, harness,
/// libraries, settings and corpus, each shard once. What is left is the cover: the shards missing.
package enum ShardMerge {
    package struct Mismatch: Error, CustomStringConvertible {
        package var differences: [String]
        package var description: String {
            "the folders are not shards of one measurement: " + differences.joined(separator: "; ")
        }
    }

    /// A recorded setting as the message shows it: an option a shard was run without is recorded
    /// empty (or not at all) and shown as "(not given)", not as an empty value.
    static func shown(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "(not given)" }
        return value
    }

    /// Throws every difference, each naming the shards and values; returns the shards (1-based)
    /// of `count` that no folder holds.
    package static func missingShards(_ folders: [ShardFolder]) throws(Mismatch) -> [Int] {
        guard let first = folders.min(by: { $0.shard.index < $1.shard.index }) else { return [] }
        var differences: [String] = []
        let name = { (folder: ShardFolder) in "shard \(folder.record.shard) (\(folder.path))" }
        for folder in folders where folder.path != first.path {
            let (this, that) = (folder.record, first.record)
            func differ(_ what: String, _ mine: String, _ theirs: String) {
                differences.append("\(name(folder)) \(what) \(mine), \(name(first)) \(theirs)")
            }
            if this.kind != that.kind {
                differ("is a", "\(this.kind.rawValue) folder", "a \(that.kind.rawValue) folder")
                continue
            }
            if folder.shard.count != first.shard.count {
                differ("is one of", "\(folder.shard.count) shards", "one of \(first.shard.count)")
            }
            if this.harness != that.harness { differ("was measured by", this.harness, "by \(that.harness)") }
            // The binary: by commit where both say one; by build ID where neither does; a mix names
            // no common ground, so it is refused too.
            switch (this.commit, that.commit) {
            case let (mine?, theirs?) where mine != theirs:
                differ("was built from commit", mine, "from \(theirs)")
            case (nil, nil) where this.build != that.build:
                differ(
                    "was measured by the bench binary with build ID",
                    this.build ?? "(not recorded)",
                    "by build ID \(that.build ?? "(not recorded)")"
                )
            case let (mine?, nil), let (nil, mine?):
                differ(
                    "records",
                    this.commit == nil ? "no commit" : "commit \(mine)",
                    that.commit == nil
                        ? "records none (set BENCH_COMMIT for every shard, or for none)"
                        : "records commit \(mine) (set BENCH_COMMIT for every shard, or for none)"
                )
            default: break
            }
            for key in Set(this.libraries.keys).union(that.libraries.keys).sorted()
            where this.libraries[key] != that.libraries[key] {
                differ(
                    "has \(key)",
                    this.libraries[key] ?? "(not recorded)",
                    "\(that.libraries[key] ?? "(not recorded)")"
                )
            }
            for key in Set(this.settings.keys).union(that.settings.keys).sorted()
            where this.settings[key] != that.settings[key] {
                differ(
                    "was run with \(key)",
                    Self.shown(this.settings[key]),
                    "with \(key) \(Self.shown(that.settings[key]))"
                )
            }
            if this.corpusDigest != that.corpusDigest || this.corpusEntries != that.corpusEntries {
                differ(
                    "measured a corpus of",
                    "\(this.corpusEntries ?? 0) entries (digest \(this.corpusDigest ?? "none"))",
                    "one of \(that.corpusEntries ?? 0) entries (digest \(that.corpusDigest ?? "none")): not the same files"
                )
            }
        }
        // Each shard once among the folders of the first one's kind (a folder of the other kind is named above).
        var holders: [Int: [String]] = [:]
        for folder in folders where folder.record.kind == first.record.kind {
            holders[folder.shard.index, default: []].append(folder.path)
        }
        for (index, paths) in holders.sorted(by: { $0.key < $1.key }) where paths.count > 1 {
            let shard = "\(first.record.kind.rawValue) shard \(index)/\(first.shard.count)"
            differences.append(
                "\(shard) is in \(paths.count) folders "
                    + "(\(paths.joined(separator: ", "))); give each shard once"
            )
        }
        guard differences.isEmpty else { throw Mismatch(differences: differences) }
        return (1...first.shard.count).filter { holders[$0] == nil }
    }
}

/// A shard folder's rows that cannot be read: missing (exit 66) or malformed (exit 65).
package struct MergeInputError: Error, CustomStringConvertible {
    package var isMissing: Bool
    package var description: String

    package init(missing: Bool, _ description: String) {
        isMissing = missing
        self.description = description
    }
}

/// A shard folder that does not hold every row it planned, or that a live run is still writing.
package struct IncompleteShard: Sendable, Codable {
    package var shard: String
    package var folder: String
    /// nil when the shard never recorded its plan (an older bench, or stopped before it knew it).
    package var plannedRows: Int?
    package var missingRows: Int?
    /// "a live bench run (pid 4242) is writing it", "stopped by SIGTERM", ...
    package var why: String

    package var description: String {
        let count =
            missingRows.map { "\($0) of \(plannedRows ?? 0) planned rows missing" }
            ?? "how many rows it lacks is unknown"
        return "shard \(shard) (\(folder)) is incomplete: \(count) (\(why))"
    }
}

extension ShardFolder {
    /// nil when the shard is whole: no live run holds its folder and each key it planned is among
    /// `keys`, its rows' distinct keys (failed runs and unmeasured files are rows too). Throws
    /// (65) when its rows are not the planned ones: more of them, or other keys.
    package func incompleteness(keys: Set<String>) throws(MergeInputError) -> IncompleteShard? {
        let live = OutputFolder.liveRun(in: URL(fileURLWithPath: path, isDirectory: true))
        var missing: Int?
        if let planned = record.plannedRows, let digest = record.plannedKeysDigest {
            let present = PlannedKeys(keys)
            if present.count > planned || (present.count == planned && present.digestText != digest) {
                throw MergeInputError(
                    missing: false,
                    "shard \(record.shard) (\(path)) holds rows its plan does not "
                        + "name (\(present.count) distinct rows, \(planned) planned): "
                        + "not this shard's rows; "
                        + "measure it again"
                )
            }
            missing = planned - present.count
        }
        guard live != nil || missing != 0 else { return nil }
        let why: String
        if let live {
            why = "a live bench run\(live.pid.map { " (pid \($0))" } ?? "") is still writing it"
        } else if record.plannedRows == nil {
            why =
                record.ended.map { "stopped by \($0) before its plan was known" }
                ?? "its shard.json records no plan: written by an older bench, or stopped before its plan was known"
        } else if let ended = record.ended {
            why =
                ended == ShardRecord.finished
                ? "its rows file lacks rows it had when it finished"
                : "stopped by \(ended)"
        } else {
            why =
                "it never recorded an end: killed (SIGKILL, out of memory, a CI timeout) while measuring, "
                + "or its folder could not be written"
        }
        return IncompleteShard(
            shard: record.shard,
            folder: path,
            plannedRows: record.plannedRows,
            missingRows: missing,
            why: why
        )
    }
}

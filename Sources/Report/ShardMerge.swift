import BenchCore
import Foundation

/// A folder given to `bench merge`, with its shard record.
package struct ShardFolder: Sendable {
    package var path: String
    package var record: ShardRecord
    package var shard: Shard

    package init(path: String, record: ShardRecord) throws(ShardRecord.ReadError) {
        guard let shard = record.parsedShard else { throw .malformed(path: path, problem: "shard '\(record.shard)' is not i/n") }
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
            if let mine = this.commit, let theirs = that.commit, mine != theirs {
                differ("was built from commit", mine, "from \(theirs)")
            }
            for key in Set(this.libraries.keys).union(that.libraries.keys).sorted() where this.libraries[key] != that.libraries[key] {
                differ("has \(key)", this.libraries[key] ?? "(not recorded)", "\(that.libraries[key] ?? "(not recorded)")")
            }
            for key in Set(this.settings.keys).union(that.settings.keys).sorted() where this.settings[key] != that.settings[key] {
                differ("was run with \(key)", this.settings[key] ?? "(not given)", "with \(key) \(that.settings[key] ?? "(not given)")")
            }
            if this.corpusDigest != that.corpusDigest || this.corpusEntries != that.corpusEntries {
                differ("measured a corpus of", "\(this.corpusEntries ?? 0) entries (digest \(this.corpusDigest ?? "none"))",
                       "one of \(that.corpusEntries ?? 0) entries (digest \(that.corpusDigest ?? "none")): not the same files")
            }
        }
        var holders: [Int: [String]] = [:]
        for folder in folders { holders[folder.shard.index, default: []].append(folder.path) }
        for (index, paths) in holders.sorted(by: { $0.key < $1.key }) where paths.count > 1 {
            differences.append("shard \(index)/\(first.shard.count) is in \(paths.count) folders (\(paths.joined(separator: ", "))); give each shard once")
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

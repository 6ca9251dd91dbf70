import BenchCore
import Corpus
import Foundation
import Testing

/// Which shard measures a corpus file: its bytes decide, not its name or the walk's order.
@Suite struct CorpusShardTests {
    static func folder(_ files: [String: [UInt8]]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-shard-\(UUID().uuidString.prefix(8))"
        )
        for (name, bytes) in files {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(bytes).write(to: url)
        }
        return folder
    }

    @Test func theShardsCoverACorpusExactlyOnce() throws {
        // 1 MiB and more: the hash is fed in pieces; the content still decides.
        var files: [String: [UInt8]] = ["big.bin": [UInt8](repeating: 7, count: (1 << 20) + 3)]
        for item in 0..<200 { files["d\(item % 7)/f\(item).jpg"] = Array("image \(item)".utf8) }
        let folder = try Self.folder(files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let entries = try CorpusInput.entries(at: folder.path)
        #expect(entries.count == 201)
        for count in [1, 2, 3, 4, 7] {
            let parts = (1...count).map { CorpusShard.select(entries, shard: Shard(index: $0, count: count)!) }
            let chosen = parts.flatMap { $0.entries.map(\.name) }
            #expect(chosen.sorted() == entries.map(\.name).sorted(), "\(count) shards: every file once")
            #expect(Set(parts.map(\.corpusDigest)).count == 1 && parts.allSatisfy { $0.corpusEntries == 201 })
            if count > 1 {
                #expect(parts.allSatisfy { !$0.entries.isEmpty }, "\(count): \(parts.map(\.entries.count))")
            }
        }
    }

    @Test func theBytesDecideNotTheNameOrOrder() throws {
        var files: [String: [UInt8]] = [:]
        for item in 0..<40 { files["a/\(item).jpg"] = Array("pixels \(item)".utf8) }
        let first = try Self.folder(files)
        // The same bytes under other names, in another order of the walk.
        let renamed = try Self.folder(
            Dictionary(uniqueKeysWithValues: files.map { ("zz/\(String($0.key.reversed())).img", $0.value) })
        )
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: renamed)
        }
        let shard = Shard(index: 2, count: 3)!
        let one = CorpusShard.select(try CorpusInput.entries(at: first.path), shard: shard)
        let two = CorpusShard.select(try CorpusInput.entries(at: renamed.path), shard: shard)
        func contents(_ folder: URL, _ selection: CorpusShard.Selection) throws -> Set<Data> {
            Set(try selection.entries.map { try Data(contentsOf: folder.appendingPathComponent($0.name)) })
        }
        #expect(try contents(first, one) == contents(renamed, two))
        #expect(one.corpusDigest == two.corpusDigest, "the same files, wherever they are")
        let other = CorpusShard.select(try CorpusInput.entries(at: first.path).dropLast(), shard: shard)
        #expect(other.corpusDigest != one.corpusDigest, "a file fewer is another corpus")
    }
}

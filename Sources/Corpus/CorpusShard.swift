import BenchCore
import Foundation

/// Which corpus entries a shard measures: a file by its bytes (so the same corpus splits the same
/// way wherever it is checked out and however the walk orders it), a URL by its text (fetching
/// every URL on every machine just to pick would multiply the load by the shard count), a folder
/// that cannot be read by its name (its read_error row belongs to one shard, not to each).
package enum CorpusShard {
    package struct Selection: Sendable {
        package var entries: [CorpusEntry]
        /// Every entry of the whole corpus, whichever shard it went to.
        package var corpusEntries: Int
        /// The hashes of every entry, order-free: two shards with the same digest split one corpus.
        package var corpusDigest: String
    }

    package static func select(_ entries: [CorpusEntry], shard: Shard) -> Selection {
        let hashes = entries.map(hash)
        var digest = StableHash()
        for value in hashes.sorted() { withUnsafeBytes(of: value.littleEndian) { digest.combine($0) } }
        let chosen = zip(entries, hashes).filter { shard.includes(hash: $0.1) }.map(\.0)
        return Selection(
            entries: chosen,
            corpusEntries: entries.count,
            corpusDigest: String(digest.value, radix: 16)
        )
    }

    /// The entry's stable hash: its bytes, its URL, or its name when it cannot be read.
    package static func hash(_ entry: CorpusEntry) -> UInt64 {
        switch entry.location {
        case .file(let path): return contentHash(path) ?? StableHash.of("unreadable:" + entry.name)
        case .url(let url): return StableHash.of("url:" + url.absoluteString)
        case .unreadable: return StableHash.of("unreadable:" + entry.name)
        }
    }

    /// FNV-1a of the whole file, read in 1 MiB pieces; nil when it cannot be read.
    static func contentHash(_ path: RawPath) -> UInt64? {
        let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hash = StableHash()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 { if errno == EINTR { continue } else { return nil } }
            if count == 0 { return hash.value }
            hash.combine(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}

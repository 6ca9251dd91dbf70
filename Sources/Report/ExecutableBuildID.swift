import Foundation

/// The GNU build ID of the running executable (the linker's NT_GNU_BUILD_ID note, as
/// `readelf -n` prints it): names the binary that measured when no commit does.
package enum ExecutableBuildID {
    /// Read once from /proc/self/exe; nil when it is not a 64-bit little-endian ELF file with the note.
    package static let current: String? = read(path: "/proc/self/exe")

    package static func read(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: count),
                data.count == count
            else { return nil }
            return [UInt8](data)
        }
        func integer(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
        }
        // ELF64 little-endian: program headers at e_phoff, e_phnum entries of e_phentsize bytes.
        guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46],
            header[4] == 2, header[5] == 1
        else { return nil }
        let tableOffset = integer(header, 32, 8)
        let entrySize = Int(integer(header, 54, 2))
        let entries = Int(integer(header, 56, 2))
        guard entrySize >= 56, entries <= 256 else { return nil }
        for index in 0..<entries {
            // p_type 4 is PT_NOTE.
            guard let entry = bytes(at: tableOffset + UInt64(index * entrySize), count: 56),
                integer(entry, 0, 4) == 4
            else { continue }
            let size = Int(integer(entry, 32, 8))
            guard size <= 1 << 16, let notes = bytes(at: integer(entry, 8, 8), count: size) else { continue }
            var at = 0
            while at + 12 <= notes.count {
                let nameSize = Int(integer(notes, at, 4))
                let descriptionSize = Int(integer(notes, at + 4, 4))
                let type = integer(notes, at + 8, 4)
                let nameEnd = at + 12 + (nameSize + 3) / 4 * 4
                let descriptionEnd = nameEnd + (descriptionSize + 3) / 4 * 4
                guard nameEnd <= notes.count, nameEnd + descriptionSize <= notes.count else { break }
                // Note type 3 is NT_GNU_BUILD_ID, named "GNU".
                if type == 3, nameSize == 4, notes[(at + 12)..<(at + 15)] == [0x47, 0x4E, 0x55] {
                    return notes[nameEnd..<(nameEnd + descriptionSize)].map { String(format: "%02x", $0) }.joined()
                }
                at = descriptionEnd
            }
        }
        return nil
    }
}

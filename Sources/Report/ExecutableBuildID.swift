import Foundation

/// The GNU build ID of the running executable (the linker's NT_GNU_BUILD_ID note, as
/// `readelf -n` prints it): names the binary that measured when no commit does.
package enum ExecutableBuildID {
    /// Read once from /proc/self/exe; nil when it is not a 64-bit little-endian ELF file with the note.
    package static let current: String? = read(path: "/proc/self/exe")

    package static func read(path: String) -> String? {
        guard let file = ELFFile(path: path) else { return nil }
        for index in 0..<file.programHeaders {
            // p_type 4 is PT_NOTE.
            guard let entry = file.programHeader(index), ELFFile.integer(entry, 0, 4) == 4 else { continue }
            let size = Int(ELFFile.integer(entry, 32, 8))
            guard size <= 1 << 16, let notes = file.bytes(at: ELFFile.integer(entry, 8, 8), count: size) else {
                continue
            }
            var at = 0
            while at + 12 <= notes.count {
                let nameSize = Int(ELFFile.integer(notes, at, 4))
                let descriptionSize = Int(ELFFile.integer(notes, at + 4, 4))
                let type = ELFFile.integer(notes, at + 8, 4)
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

/// The `.comment` section of the running executable: the compilers that built it, each once
/// ("clang version 21.0.0 (https://github.com/swiftlang/llvm-project.git ...)" for the toolchain's
/// clang, which compiled the C shims), as `readelf -p .comment` prints them.
package enum ExecutableComment {
    package static let current: [String] = read(path: "/proc/self/exe")

    package static func read(path: String) -> [String] {
        guard let file = ELFFile(path: path), let section = file.section(named: ".comment"),
            section.size <= 1 << 16, let bytes = file.bytes(at: section.offset, count: Int(section.size))
        else { return [] }
        var seen: [String] = []
        for text in bytes.split(separator: 0).map({ String(decoding: $0, as: UTF8.self) }) where !seen.contains(text) {
            seen.append(text)
        }
        return seen
    }
}

/// A 64-bit little-endian ELF file read by offsets, every size bounded (the file may be anything).
struct ELFFile {
    let handle: FileHandle
    let header: [UInt8]

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
        guard let header = Self.read(handle, at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46],
            header[4] == 2, header[5] == 1
        else {
            try? handle.close()
            return nil
        }
        self.header = header
    }

    static func read(_ handle: FileHandle, at offset: UInt64, count: Int) -> [UInt8]? {
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: count),
            data.count == count
        else { return nil }
        return [UInt8](data)
    }

    func bytes(at offset: UInt64, count: Int) -> [UInt8]? { Self.read(handle, at: offset, count: count) }

    static func integer(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    /// Program headers at e_phoff, e_phnum entries of e_phentsize bytes.
    var programHeaders: Int {
        Self.integer(header, 54, 2) >= 56 ? min(Int(Self.integer(header, 56, 2)), 256) : 0
    }

    func programHeader(_ index: Int) -> [UInt8]? {
        bytes(at: Self.integer(header, 32, 8) + UInt64(index * Int(Self.integer(header, 54, 2))), count: 56)
    }

    /// The section named `name` (section headers at e_shoff, names in section e_shstrndx).
    func section(named name: String) -> (offset: UInt64, size: UInt64)? {
        let tableOffset = Self.integer(header, 40, 8)
        let entrySize = Int(Self.integer(header, 58, 2))
        let entries = Int(Self.integer(header, 60, 2))
        let namesIndex = Int(Self.integer(header, 62, 2))
        guard entrySize >= 64, entries <= 1 << 16, namesIndex < entries else { return nil }
        func entry(_ index: Int) -> [UInt8]? { bytes(at: tableOffset + UInt64(index * entrySize), count: 64) }
        guard let namesEntry = entry(namesIndex), Self.integer(namesEntry, 32, 8) <= 1 << 20,
            let names = bytes(at: Self.integer(namesEntry, 24, 8), count: Int(Self.integer(namesEntry, 32, 8)))
        else { return nil }
        let wanted = Array(name.utf8) + [0]
        for index in 0..<entries {
            guard let section = entry(index) else { return nil }
            let start = Int(Self.integer(section, 0, 4))
            guard start + wanted.count <= names.count, Array(names[start..<(start + wanted.count)]) == wanted else {
                continue
            }
            return (Self.integer(section, 24, 8), Self.integer(section, 32, 8))
        }
        return nil
    }
}

import CHeapPeak
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `heappeak_resident_range` counts the bytes of [start, start + length) that lie on resident pages:
/// whole pages whole, and of the first and the last page only the part inside the range.
@Suite struct ResidentRangeTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    @Test func partPagesAtEitherEndCountOnlyTheirPartInsideTheRange() throws {
        let pages = 6
        let mapping = try #require(
            mmap(nil, pages * Self.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        )
        defer { munmap(mapping, pages * Self.page) }
        let base = UInt(bitPattern: mapping)
        let bytes = mapping.assumingMemoryBound(to: UInt8.self)
        for touched in [0, 2, 3, 5] { bytes[touched * Self.page] = 1 }  // pages 1 and 4 stay untouched
        let page = UInt(Self.page)

        // From 100 bytes into page 0 to 50 bytes into page 3: 100 short of page 0, page 2, 50 of page 3.
        #expect(heappeak_resident_range(base + 100, UInt64(3 * page - 100 + 50)) == UInt64(page - 100 + page + 50))
        // Within one resident page: the range's own bytes.
        #expect(heappeak_resident_range(base + 2 * page + 10, 20) == 20)
        // Starting and ending on untouched pages: only the resident pages between them.
        #expect(heappeak_resident_range(base + page + 7, UInt64(3 * page)) == UInt64(2 * page))
        // The whole mapping, and nothing of an untouched page.
        #expect(heappeak_resident_range(base, UInt64(pages) * UInt64(page)) == UInt64(4 * page))
        #expect(heappeak_resident_range(base + 4 * page + 1, UInt64(page - 2)) == 0)
    }
}

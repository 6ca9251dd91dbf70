import CHeapPeak
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The anonymous mappings made through mmap() are noted with their range and caller, as the kernel
/// has them after each map, unmap and remap: jemalloc's `allocator-free` is read from its own.
@Suite struct MappingTableTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The noted mapping that holds `pointer`, or nil.
    static func mapping(at pointer: UnsafeMutableRawPointer) -> (start: UInt, end: UInt, caller: UInt)? {
        var start: UInt = 0
        var end: UInt = 0
        var caller: UInt = 0
        guard heappeak_mapping_at(UInt(bitPattern: pointer), &start, &end, &caller) != 0 else { return nil }
        return (start, end, caller)
    }

    static func address(_ pointer: UnsafeMutableRawPointer, plus pages: Int = 0) -> UInt {
        UInt(bitPattern: pointer) + UInt(pages * page)
    }

    @Test func aMappingIsNotedWithItsCallerUntilItIsUnmapped() throws {
        var low: UInt = 0
        var high: UInt = 0
        try #require(heappeak_object_range("mmap", &low, &high) != 0)
        let block = try #require(mmap(nil, 8 * Self.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        let noted = try #require(Self.mapping(at: block))
        #expect(noted.start == Self.address(block) && noted.end == Self.address(block, plus: 8))
        #expect((low..<high).contains(noted.caller), "the caller is in the object that defines mmap: this executable")
        munmap(block, 8 * Self.page)
        #expect(Self.mapping(at: block) == nil)
    }

    /// Unmapping a page in the middle leaves two mappings; mapping over a part with a file
    /// takes that part out.
    @Test func partsUnmappedOrMappedOverLeaveTheRestNoted() throws {
        let block = try #require(mmap(nil, 8 * Self.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        munmap(block + 3 * Self.page, Self.page)
        let below = try #require(Self.mapping(at: block))
        #expect(below.start == Self.address(block) && below.end == Self.address(block, plus: 3))
        #expect(Self.mapping(at: block + 3 * Self.page) == nil)
        let above = try #require(Self.mapping(at: block + 4 * Self.page))
        #expect(above.start == Self.address(block, plus: 4) && above.end == Self.address(block, plus: 8))

        let file = open("/proc/self/exe", O_RDONLY)
        defer { close(file) }
        let over = mmap(block, Self.page, PROT_READ, MAP_PRIVATE | MAP_FIXED, file, 0)
        #expect(over == block)
        #expect(Self.mapping(at: block) == nil, "a file mapped over the first page")
        #expect(try #require(Self.mapping(at: block + Self.page)).start == Self.address(block, plus: 1))

        munmap(block + Self.page, 2 * Self.page)
        munmap(block + 4 * Self.page, 4 * Self.page)
        #expect(Self.mapping(at: block + Self.page) == nil && Self.mapping(at: block + 4 * Self.page) == nil)
    }
}

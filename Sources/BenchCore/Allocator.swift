/// Which allocator serves the measured process.
package enum Allocator: String, CaseIterable, Codable, Sendable {
    /// glibc's malloc; counters from `mallinfo2()`.
    case system
    /// jemalloc, preloaded into the child with LD_PRELOAD; counters from `mallctl`.
    case jemalloc
}

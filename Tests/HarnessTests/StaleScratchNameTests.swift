import Harness
import Testing

/// Which names in $TMPDIR are a bench process's scratch (removed once that process is gone): our
/// prefixes with a pid and 8 hex digits, nothing else.
struct StaleScratchNameTests {
    @Test func eachKindOfScratchNamesItsOwner() {
        #expect(StaleScratch.ownerPID("bench-123-ABCDEF12") == 123)
        #expect(StaleScratch.ownerPID("bench-corpus-124-abcdef12") == 124)
        #expect(StaleScratch.ownerPID("bench-scenario-125-01234567") == 125)
        #expect(StaleScratch.ownerPID("bench-server-126-89ABCDEF") == 126)
    }

    @Test func otherNamesAreNotOurs() {
        for name in [
            "bench-rescue-x", "bench-test-12345678", "bench-server-x-89ABCDEF", "bench-server-126-89ABCDEG",
            "bench-server-126-89ABCDE", "bench-other-126-89ABCDEF", "server-126-89ABCDEF", "bench-0-89ABCDEF",
        ] {
            #expect(StaleScratch.ownerPID(name) == nil, "\(name)")
        }
    }
}

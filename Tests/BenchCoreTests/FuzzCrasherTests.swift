import BenchCore
import Foundation
import Testing

/// Inputs that `make fuzz` (scripts/fuzz.sh) found to crash a reader, minimized by libFuzzer and
/// kept here byte for byte: each must now be an error naming the problem.
@Suite struct TrialsCSVFuzzCrasherTests {
    /// A pid past Int32 (2553708401): converting it to pid_t trapped.
    @Test func trialsCSVWithAPidPastInt32() {
        let input = Data([
            0x73, 0x74, 0x72, 0x61, 0x74, 0x65, 0x67, 0x79, 0x2C, 0x72, 0x65, 0x6E, 0x64, 0x65, 0x72, 0x2C,
            0x61, 0x6C, 0x6C, 0x6F, 0x63, 0x61, 0x74, 0x6F, 0x72, 0x2C, 0x72, 0x75, 0x6E, 0x2C, 0x70, 0x69,
            0x64, 0x2C, 0x2C, 0x2C, 0x73, 0x74, 0x61, 0x74, 0x75, 0x73, 0x2C, 0x2C, 0x2C, 0x0A, 0x2C, 0x6E,
            0x2C, 0x73, 0x79, 0x73, 0x74, 0x65, 0x6D, 0x2C, 0x31, 0x2C, 0x32, 0x35, 0x35, 0x33, 0x37, 0x30,
            0x38, 0x34, 0x30, 0x31, 0x2C, 0x2C, 0x2C, 0x2C, 0x2C, 0x2C,
        ])
        // Refused for its missing columns now, before the pid is read: an error, not a trap.
        #expect { try TrialsCSV.parse(String(decoding: input, as: UTF8.self)) } throws: { error in
            "\(error)".contains("missing column(s) baseline_rss_bytes, peak_rss_bytes")
        }
        // The same pid in a file with every required column reaches the conversion that trapped.
        let complete =
            "strategy,render,allocator,run,pid,baseline_rss_bytes,peak_rss_bytes,status\n"
            + "data,none,system,1,2553708401,,,ok\n"
        #expect { try TrialsCSV.parse(complete) } throws: { error in
            "\(error)".contains("pid '2553708401'")
        }
    }
}

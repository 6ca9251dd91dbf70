import BenchCore
import CHeapPeak
import Foundation

/// The blocks live at the exact heap peak, with their stacks (CHeapPeak records every block of at
/// least a threshold once started). Frames are turned into (file, offset) here with `dladdr`,
/// which only reads the loader's tables; naming them is the parent's job (``StackFrame``).
package enum PeakBlocks {
    /// Starts recording blocks of at least `thresholdBytes` (0: none) in a table of `tableCapacity`
    /// records (0: the default, 4,096; see `heappeak_holders_start`). Call before the window.
    package static func start(thresholdBytes: Int, tableCapacity: Int = 0) {
        heappeak_holders_start(UInt64(max(0, thresholdBytes)), max(0, tableCapacity))
    }

    /// Blocks recorded or released so far, and the nanoseconds the wrappers spent doing it.
    package static func cost() -> (events: Int, nanos: UInt64) {
        var events: UInt64 = 0
        var nanos: UInt64 = 0
        heappeak_holders_cost(&events, &nanos)
        return (Int(events), nanos)
    }

    /// The recorded blocks live at the peak since the last reset, and how many blocks the full
    /// table could not record. `windowStart` (CLOCK_MONOTONIC) is time zero of their times.
    package static func atPeak(windowStart: UInt64) -> (blocks: [PeakBlock], dropped: Int) {
        var dropped: UInt64 = 0
        var count = heappeak_holders_at_peak(nil, 0, &dropped)
        var raw = [heappeak_block](repeating: heappeak_block(), count: count + 16)
        count = min(
            raw.count,
            raw.withUnsafeMutableBufferPointer {
                heappeak_holders_at_peak($0.baseAddress, $0.count, &dropped)
            }
        )
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var modules: [String: String] = [:]  // dli_fname as the loader has it -> the file's path
        let blocks = raw.prefix(count).map { block -> PeakBlock in
            var copy = block
            let addresses = withUnsafeBytes(of: &copy.stack) {
                Array($0.bindMemory(to: UInt.self).prefix(Int(block.depth)))
            }
            let frames = addresses.enumerated().compactMap { index, address -> StackFrame? in
                // A return address points after its call: look up the call itself.
                let lookup = index == 0 ? address : address - 1
                var file: UnsafePointer<CChar>?
                var symbol: UnsafePointer<CChar>?
                var base: UInt = 0
                guard heappeak_locate(lookup, &file, &base, &symbol) != 0 else { return nil }
                let loaderName = file.map { String(cString: $0) } ?? ""
                let module =
                    modules[loaderName]
                    ?? {
                        // The main program's entry is argv[0] or empty: name it by its real path.
                        let path =
                            loaderName.isEmpty || !loaderName.hasPrefix("/")
                                || loaderName == CommandLine.arguments.first
                            ? executable : loaderName
                        modules[loaderName] = path
                        return path
                    }()
                return StackFrame(
                    module: module,
                    offset: UInt64(lookup - base),
                    symbol: symbol.map { String(cString: $0) }
                )
            }
            func seconds(_ nanos: UInt64) -> Double { (Double(nanos) - Double(windowStart)) / 1e9 }
            var peakBlock = PeakBlock(
                bytes: Int(block.bytes),
                allocatedSeconds: seconds(block.allocated_nanos),
                freedSeconds: block.freed_nanos == 0 ? nil : seconds(block.freed_nanos),
                frames: frames
            )
            peakBlock.residentBytes = Int(block.resident_bytes)
            return peakBlock
        }
        return (blocks, Int(dropped))
    }
}

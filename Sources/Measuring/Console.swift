import BenchCore
import Foundation
import Harness

package func printError(_ message: String) {
    StandardError.write(message + "\n")
}

extension AllocatorEnvironment {
    /// Said by every measuring command the same way: once, on stderr, before the first trial,
    /// naming the settings and `record`, where they are (or are not) kept.
    package static func warnIfSet(record: String) {
        if let warning = warning(settings(), record: record) { printError(warning) }
    }
}

/// An error that ends the command with one of `BenchExitCode`'s statuses and a message on stderr
/// (the command line prints it: `BenchFailure.reported()`).
package struct BenchFailure: Error, CustomStringConvertible {
    package var code: BenchExitCode
    package var description: String

    package init(_ code: BenchExitCode, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// How a measurement ended when not every trial succeeded: its exit status, everything already said
/// on stderr (rows failed 3, output lost 74, interrupted 128 + the signal).
package struct MeasurementEnd: Error {
    package var status: Int32

    package init(status: Int32) { self.status = status }
}

/// One line on stderr when stderr is a terminal (as hyperfine does): rows done of the planned,
/// rows a minute, the time left and the failures so far, redrawn at most about once a second.
/// Otherwise (CI logs, pipes) a plain line at most every 10 seconds, and one for the last trial.
package final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) != 0
    private let started = Date()
    /// Rows an interrupted run had done before this one resumed it: not in this run's rate.
    private let alreadyDone: Int
    private var lastDrawn = Date.distantPast
    private var lastPlainLine = Date.distantPast
    private var failures = 0

    package init(alreadyDone: Int = 0) {
        self.alreadyDone = alreadyDone
    }

    package func show(_ result: TrialResult, index: Int, total: Int) {
        let peak =
            result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
        show(
            text: "",
            index: index,
            total: total,
            latest: "\(result.cell.description) run \(result.run): \(peak)",
            failed: !result.isSuccess
        )
    }

    /// "[prefix index/total] latest   (elapsed, ~left)" when piped; on a terminal also rows a
    /// minute and failures so far.
    package func show(text prefix: String, index: Int, total: Int, latest: String, failed: Bool = false) {
        if failed { failures += 1 }
        let now = Date()
        guard enabled else {
            if index == total || now.timeIntervalSince(lastPlainLine) >= 10 {
                lastPlainLine = now
                StandardError.write(describe(prefix: prefix, index: index, total: total, latest: latest) + "\n")
            }
            return
        }
        guard index == total || now.timeIntervalSince(lastDrawn) >= 1 else { return }
        lastDrawn = now
        let line = describeLive(prefix: prefix, index: index, total: total, latest: latest)
        StandardError.write("\r\u{1B}[K" + Self.fitted(line, columns: Self.terminalColumns()))
    }

    /// The line cut to one column less than the terminal's width: a line that wraps cannot be
    /// redrawn by "\r", and each update would leave a fragment behind.
    package static func fitted(_ line: String, columns: Int?) -> String {
        guard let columns, columns > 1, line.count >= columns else { return line }
        return String(line.prefix(columns - 1))
    }

    /// stderr's terminal width, when the terminal says.
    package static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    private func describe(prefix: String, index: Int, total: Int, latest: String) -> String {
        let elapsed = Date().timeIntervalSince(started)
        let measured = index - alreadyDone
        let eta = measured > 0 ? elapsed / Double(measured) * Double(total - index) : 0
        return String(
            format: "[%@%d/%d] %@   (%.0f s, ~%.0f s left)",
            prefix.isEmpty ? "" : prefix + " ",
            index,
            total,
            latest,
            elapsed,
            eta
        )
    }

    private func describeLive(prefix: String, index: Int, total: Int, latest: String) -> String {
        let elapsed = Date().timeIntervalSince(started)
        let measured = index - alreadyDone
        let perMinute = elapsed > 0 ? Double(measured) / elapsed * 60 : 0
        let left = measured > 0 ? elapsed / Double(measured) * Double(total - index) : 0
        let failed = failures == 0 ? "" : ", \(failures) failed"
        return String(
            format: "[%@%d/%d] %.0f/min, %@ left%@  %@",
            prefix.isEmpty ? "" : prefix + " ",
            index,
            total,
            perMinute,
            Self.duration(left),
            failed,
            latest
        )
    }

    /// 42 -> "42 s", 754 -> "12 min 34 s", 7300 -> "2 h 1 min".
    package static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    package func finish() {
        guard enabled else { return }
        StandardError.write("\r\u{1B}[K")
    }
}

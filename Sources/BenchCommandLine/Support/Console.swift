import ArgumentParser
import Foundation
import BenchCore
import Harness

func printError(_ message: String) {
    StandardError.write(message + "\n")
}

/// An error that ends the command with one of `BenchExitCode`'s statuses and a message on stderr.
struct BenchFailure: Error, CustomStringConvertible {
    var code: BenchExitCode
    var description: String

    init(_ code: BenchExitCode, _ description: String) {
        self.code = code
        self.description = description
    }
}

extension BenchFailure {
    /// Prints the message and gives the status to throw (`throw failure.reported()`): ArgumentParser
    /// then exits with it after the command's defers ran (it would map any other error to 1).
    func reported() -> ExitCode {
        printError("bench: \(description)")
        return ExitCode(code.rawValue)
    }
}

/// One line on stderr, redrawn after every trial, when stderr is a terminal (as hyperfine does).
/// Otherwise (CI logs, pipes) a plain line at most every 10 seconds, and one for the last trial.
final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private var lastPlainLine = Date.distantPast

    func show(_ result: TrialResult, index: Int, total: Int) {
        let peak = result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
        show(text: "", index: index, total: total, latest: "\(result.cell.description) run \(result.run): \(peak)")
    }

    /// "[prefix index/total] latest   (elapsed, ~left)".
    func show(text prefix: String, index: Int, total: Int, latest: String) {
        let line = describe(prefix: prefix, index: index, total: total, latest: latest)
        guard enabled else {
            if index == total || Date().timeIntervalSince(lastPlainLine) >= 10 {
                lastPlainLine = Date()
                StandardError.write(line + "\n")
            }
            return
        }
        StandardError.write("\r\u{1B}[K" + line)
    }

    private func describe(prefix: String, index: Int, total: Int, latest: String) -> String {
        let elapsed = Date().timeIntervalSince(started)
        let eta = index > 0 ? elapsed / Double(index) * Double(total - index) : 0
        return String(format: "[%@%d/%d] %@   (%.0f s, ~%.0f s left)",
                      prefix.isEmpty ? "" : prefix + " ", index, total, latest, elapsed, eta)
    }

    func finish() {
        guard enabled else { return }
        StandardError.write("\r\u{1B}[K")
    }
}

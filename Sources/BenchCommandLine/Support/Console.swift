import ArgumentParser
import Foundation
import Harness

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
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
    /// Prints the message and exits with the status (ArgumentParser would map unknown errors to 1).
    func exit() -> Never {
        printError("bench: \(description)")
        Foundation.exit(code.rawValue)
    }
}

/// One line on stderr, redrawn after every trial, when stderr is a terminal (as hyperfine does).
/// Otherwise (CI logs, pipes) a plain line at most every 10 seconds, and one for the last trial.
final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private var lastPlainLine = Date.distantPast

    func show(_ result: TrialResult, index: Int, total: Int) {
        guard enabled else {
            if index == total || Date().timeIntervalSince(lastPlainLine) >= 10 {
                lastPlainLine = Date()
                FileHandle.standardError.write(Data((describe(result, index: index, total: total) + "\n").utf8))
            }
            return
        }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + describe(result, index: index, total: total)).utf8))
    }

    private func describe(_ result: TrialResult, index: Int, total: Int) -> String {
        let peak = result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
        let elapsed = Date().timeIntervalSince(started)
        let eta = index > 0 ? elapsed / Double(index) * Double(total - index) : 0
        return String(format: "[%d/%d] %@ run %d: %@   (%.0f s, ~%.0f s left)",
                      index, total, result.cell.description, result.run, peak, elapsed, eta)
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

import BenchCore
import Dispatch
import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP ask a run to stop: the running child is killed at once (its whole
/// process group), no further trial starts, and what was measured is written; the command then
/// exits with 128 + the signal. A second signal kills the running child again and removes the
/// scratch folders right away (the parent is already winding down); a third exits at once.
/// Handled on a dispatch queue (DispatchSource), never in an async signal handler.
package enum Interruption {
    private static let count = Atomic<Int>(0)
    private static let firstSignal = Atomic<Int32>(0)
    /// The children in progress (each pid is also its process group): several with --jobs.
    private static let runningChildren = Mutex<Set<Int32>>([])
    /// Those of them that end on SIGINT and report (a listening server): the first signal is passed
    /// on to them as SIGINT instead of killing them; a second kills them too.
    private static let childrenEndingOnInterrupt = Mutex<Set<Int32>>([])
    private static let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let scratchFolders = Mutex<Set<String>>([])

    package static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// What the first two signals say is being done: a run's children and files, or a server stopping.
    package struct Wording: Sendable {
        package var first: String
        package var second: String

        package static let run = Wording(
            first: "stopping (a running child is killed, what was measured is written; send it again to stop faster)",
            second: "again: killing any running child and removing scratch folders now (a third one exits at once)"
        )
        package static let listeningServer = Wording(
            first: "closing the listening server's window: its row is written (send it again to kill it)",
            second: "again: killing the server (a third one exits at once)"
        )
        package static let server = Wording(
            first: "stopping the server (its open connections are closed)",
            second: "again: the server is stopping (a third one exits at once)"
        )
    }

    private static let wording = Mutex<Wording>(.run)

    /// True once any handled signal arrived.
    package static var requested: Bool { count.load(ordering: .acquiring) > 0 }

    /// True once a child that ends on SIGINT should be killed instead: from the second signal.
    package static var requestedTwice: Bool { count.load(ordering: .acquiring) > 1 }

    /// The first signal received, if any.
    package static var signal: Int32? {
        let value = firstSignal.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// 128 + the first signal (130 for SIGINT, 143 for SIGTERM), as a shell reports a signal's death.
    package static var exitStatus: Int32 { 128 + (signal ?? SIGINT) }

    /// "SIGINT", "SIGTERM" or "SIGHUP".
    package static var signalName: String? { signal.map(name(of:)) }

    package static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    /// Idempotent. The default actions are ignored and replaced by dispatch sources; `wording`
    /// is what the first and second signal say.
    package static func install(wording: Wording = .run) {
        self.wording.withLock { $0 = wording }
        sources.withLock { installed in
            guard installed.isEmpty else { return }
            installed = signalSources(for: handledSignals, handler: received)
        }
    }

    /// For each of `signals`: its default action ignored, and `handler` called with it on a dispatch
    /// queue, never in an async signal handler. Keep the sources: a released source stops.
    package static func signalSources(
        for signals: [Int32],
        handler: @escaping @Sendable (Int32) -> Void
    ) -> [any DispatchSourceSignal] {
        signals.map { number in
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    static func received(_ number: Int32) {
        let seen = count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        let wording = self.wording.withLock { $0 }
        if seen == 1 {
            firstSignal.store(number, ordering: .releasing)
            say("\(name(of: number)) received: \(wording.first)")
            killRunningChild(sparingThoseEndingOnInterrupt: true)
        } else if seen == 2 {
            say("\(name(of: number)) \(wording.second)")
            killRunningChild()
            removeScratchFolders()
        } else {
            say("\(name(of: number)) a third time: exiting at once")
            killRunningChild()
            removeScratchFolders()
            exit(128 + number)
        }
    }

    private static func say(_ message: String) {
        StandardError.write("\nbench: " + message + "\n")
    }

    // MARK: What a signal must not leave behind

    /// Called by `ChildProcess` once the child exists, and before it is reaped.
    static func childStarted(_ pid: Int32, endsOnInterrupt: Bool = false) {
        if endsOnInterrupt { _ = childrenEndingOnInterrupt.withLock { $0.insert(pid) } }
        _ = runningChildren.withLock { $0.insert(pid) }
    }

    package static func childEnded(_ pid: Int32) {
        _ = runningChildren.withLock { $0.remove(pid) }
        _ = childrenEndingOnInterrupt.withLock { $0.remove(pid) }
    }

    /// Kills every child in progress (with --jobs, several); with `sparingThoseEndingOnInterrupt`,
    /// those that end on SIGINT are sent SIGINT instead.
    static func killRunningChild(sparingThoseEndingOnInterrupt: Bool = false) {
        let spared = sparingThoseEndingOnInterrupt ? childrenEndingOnInterrupt.withLock { $0 } : []
        runningChildren.withLock { pids in
            for pid in pids where pid > 0 {
                if spared.contains(pid) {
                    kill(pid, SIGINT)
                    continue
                }
                kill(-pid, SIGKILL)  // its process group: whatever it started goes too
                kill(pid, SIGKILL)
            }
        }
    }

    /// A folder removed by a second signal if the code that owns it has not removed it yet.
    package static func registerScratch(_ folder: URL) {
        _ = scratchFolders.withLock { $0.insert(folder.path) }
    }

    package static func unregisterScratch(_ folder: URL) {
        _ = scratchFolders.withLock { $0.remove(folder.path) }
    }

    static func removeScratchFolders() {
        let folders = scratchFolders.withLock { $0 }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }
}

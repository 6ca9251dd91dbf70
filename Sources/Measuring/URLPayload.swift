import BenchCore
import Foundation
import Report
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `--url` serves: its size and digest, fetched once by the parent after the first measured
/// row and recorded in settings.json, so that `--resume` never mixes rows of two versions of the image.
package enum URLPayload {
    package static let settingName = "payload"

    /// "131088 bytes, FNV-1a-64 0123456789abcdef", or nil when the URL gives no 2xx body now.
    package static func describe(_ url: URL, timeoutSeconds: Double = 30) -> String? {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeoutSeconds
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let done = DispatchSemaphore(value: 0)
        let received = ReceivedBody()
        let task = session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if error == nil, (200..<300).contains(status) { received.set(data) }
            done.signal()
        }
        task.resume()
        guard done.wait(timeout: .now() + timeoutSeconds + 5) == .success, let body = received.value else {
            task.cancel()
            return nil
        }
        return "\(body.count) bytes, FNV-1a-64 \(StableHash.digest(of: body))"
    }

    /// On --resume: refuses (64) a URL that serves other bytes than the stopped run recorded, naming
    /// both; returns the recorded setting, so that settings.json's other settings compare as before.
    /// Nothing recorded (the run stopped before its first measured row): nothing to compare.
    package static func checkResume(_ url: URL, out: String) throws -> [(String, String)] {
        guard let recorded = try? RunSettings.read(from: URL(fileURLWithPath: out, isDirectory: true)),
            let then = recorded.settings.first(where: { $0.name == settingName })?.value
        else { return [] }
        guard let now = describe(url) else {
            printError(
                "warning: --resume: \(url.absoluteString) gives no body now; "
                    + "its bytes cannot be checked against the stopped run's"
            )
            return [(settingName, then)]
        }
        guard now == then else {
            throw BenchFailure(
                .usage,
                "--resume: \(url.absoluteString) serves other bytes than the stopped run "
                    + "in \(out) measured: \(then) then, \(now) now; the rows would mix two images: "
                    + "start a new run (another --out, or --replace) to measure the new one"
            )
        }
        return [(settingName, then)]
    }

    /// Records what the URL serves in the folder's settings.json, once: after the run's first
    /// measured row (the server answers then), so that a run never fetches before its children do.
    package static func record(_ url: URL, in folder: URL) {
        guard let recorded = try? RunSettings.read(from: folder),
            !recorded.settings.contains(where: { $0.name == settingName }), let now = describe(url)
        else { return }
        var updated = recorded
        updated.settings.append(RunSettings.Setting(name: settingName, value: now))
        try? updated.write(into: folder)
    }
}

/// The body a completion handler hands over on URLSession's queue, read by the waiting thread.
private final class ReceivedBody: Sendable {
    private let data = Mutex<Data?>(nil)
    func set(_ value: Data?) { data.withLock { $0 = value } }
    var value: Data? { data.withLock { $0 } }
}

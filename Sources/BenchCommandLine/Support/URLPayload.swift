import BenchCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Report

/// What `--url` serves when a run starts: its size and digest, fetched once by the parent and
/// recorded in settings.json, so that `--resume` never mixes rows of two versions of the image.
enum URLPayload {
    static let settingName = "payload"

    /// "131088 bytes, FNV-1a-64 0123456789abcdef", or nil when the URL gives no 2xx body now.
    static func describe(_ url: URL, timeoutSeconds: Double = 60) -> String? {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeoutSeconds
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var body: Data?
        let task = session.dataTask(with: request) { data, response, error in
            if error == nil, let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) { body = data }
            done.signal()
        }
        task.resume()
        guard done.wait(timeout: .now() + timeoutSeconds + 5) == .success, let body else {
            task.cancel()
            return nil
        }
        return "\(body.count) bytes, FNV-1a-64 \(StableHash.digest(of: body))"
    }

    /// The payload setting to record: refuses (64) a resume whose URL serves other bytes than the
    /// stopped run measured. When either is unknown (the URL does not answer now, or the folder is
    /// from a version that did not record it), the recorded value stands.
    static func setting(for url: URL, resume: Bool, out: String?) throws -> [(String, String)] {
        let now = describe(url)
        guard resume, let out,
              let recorded = try? RunSettings.read(from: URL(fileURLWithPath: out, isDirectory: true)) else {
            return [(settingName, now ?? "not fetched")]
        }
        guard let then = recorded.settings.first(where: { $0.name == settingName })?.value else { return [] }
        guard let now, then != "not fetched" else {
            if now == nil { printError("warning: --resume: \(url.absoluteString) gives no body now; its bytes cannot be checked against the stopped run's") }
            return [(settingName, then)]
        }
        guard now == then else {
            throw BenchFailure(.usage, "--resume: \(url.absoluteString) serves other bytes than the stopped run in \(out) measured: "
                               + "\(then) then, \(now) now; the rows would mix two images: "
                               + "start a new run (another --out, or --replace) to measure the new one").reported()
        }
        return [(settingName, now)]
    }
}

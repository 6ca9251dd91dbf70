import BenchCore
import Foundation
import Imaging
import Strategies
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An entry of the corpus once the parent has looked at it: its facts and size, or why it is not
/// measured (a row with that status, never a silent gap).
package struct CorpusImage: Sendable {
    package var entry: CorpusEntry
    /// The header's facts (ImageInspector); nil when not an image or the header is broken.
    package var facts: ImageInfo?
    /// The format from the signature: set even when the header is broken (the child's decoder
    /// then names the fault in a decode_error row).
    package var format: ImageFormat?
    package var fileBytes: Int?
    /// FNV-1a-64 of every byte examined (`StableHash.hex`): what the rows were measured from.
    /// A resume compares it with the file's bytes now, the server with the bytes it serves.
    package var payloadDigest: String?
    /// Set when the image is not measured: "not_an_image", "read_error" or "fetch_error".
    package var skipStatus: String?
    package var skipReason: String?

    package var isMeasured: Bool { skipStatus == nil }

    /// Reads the file's first bytes (or fetches the URL) and sniffs the format from them.
    /// `shouldStop` (Ctrl-C) is asked while a URL's answer is awaited: the fetch is then cancelled.
    package static func examine(
        _ entry: CorpusEntry,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) -> CorpusImage {
        var image = CorpusImage(entry: entry)
        var head: Data
        var fileFacts: ImageInfo?
        switch entry.location {
        case .unreadable(let reason):
            return image.skipped("read_error", reason)
        case .file(let file):
            let handle: FileHandle
            switch file.openForReading() {
            case .success(let opened): handle = opened
            case .failure(let problem): return image.skipped("read_error", problem.description)
            }
            defer { try? handle.close() }
            do {
                head = try handle.read(upToCount: 1 << 20) ?? Data()
                image.fileBytes = Int(try handle.seekToEnd())
                if let size = image.fileBytes, size > CorpusInput.maxFileBytes {
                    return image.skipped(
                        "read_error",
                        "\(file.escaped) has \(size) bytes; "
                            + "the embedded server serves files up to \(CorpusInput.maxFileBytes)"
                    )
                }
                // Every byte, once: the digest names what is measured, the count is its size.
                try handle.seek(toOffset: 0)
                var hash = StableHash()
                var count = 0
                while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                    piece.withUnsafeBytes { hash.combine($0) }
                    count += piece.count
                }
                (image.fileBytes, image.payloadDigest) = (count, hash.hex)
                // Front to back, skipping what lies before the header (a large EXIF block), never all of it.
                fileFacts = try? ImageInspector.inspect(fileDescriptor: handle.fileDescriptor, name: file.escaped)
            } catch {
                return image.skipped("read_error", "cannot read \(file.escaped): \(error.localizedDescription)")
            }
        case .url(let url):
            switch Self.fetch(url, shouldStop: shouldStop) {
            case .success(let body):
                head = body
                image.fileBytes = body.count
                image.payloadDigest = StableHash.digest(of: body)
            case .failure(let problem):
                return image.skipped("fetch_error", "cannot fetch \(entry.name): \(problem)")
            }
        }
        image.format = ImageInspector.sniff(head)
        guard image.format != nil else {
            do {
                _ = try ImageInspector.inspect(head)
                return image.skipped("not_an_image", "no image signature")
            } catch {
                return image.skipped("not_an_image", "\(error)")
            }
        }
        image.facts = fileFacts ?? (try? ImageInspector.inspect(head))
        return image
    }

    struct FetchProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// The body of a 2xx answer (a 404 page is not the image), fetched once in the parent to read its
    /// header. A redirect is followed only while it stays on loopback (`LoopbackFetch`): one that
    /// leaves is refused before any connection, and the image is not measured.
    static func fetch(
        _ url: URL,
        timeoutSeconds: Double = 60,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) -> Result<Data, FetchProblem> {
        let fetch = LoopbackFetch()
        var request = URLRequest(url: url)
        request.timeoutInterval = timeoutSeconds
        let session = URLSession(configuration: .ephemeral, delegate: fetch, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        task.resume()
        // In slices, so that an interruption need not wait for a server that does not answer.
        guard let outcome = fetch.completion.wait(until: .now() + timeoutSeconds + 5, shouldStop: shouldStop) else {
            task.cancel()
            return .failure(
                FetchProblem(description: shouldStop() ? "interrupted" : "no answer within \(Int(timeoutSeconds)) s")
            )
        }
        return outcome.mapError { $0 as? FetchProblem ?? FetchProblem(description: "\($0)") }
    }

    private func skipped(_ status: String, _ reason: String) -> CorpusImage {
        var copy = self
        copy.skipStatus = status
        copy.skipReason = reason
        return copy
    }
}

/// One fetch of a corpus URL by a delegate (so that its redirects are ours to decide): the body,
/// the answer's status, and a redirect that would leave loopback refused and named.
final class LoopbackFetch: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var body = Data()
        var refusedRedirect: String?
    }
    private let state = Mutex(State())
    /// The body, or why there is none: finished once, when the task completes.
    let completion = BlockingCompletion<Data>()

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let target = request.url?.absoluteString ?? "(no URL)"
        if case .success = CorpusInput.loopbackURL(target) {
            completionHandler(request)
            return
        }
        state.withLock {
            $0.refusedRedirect =
                "refused a redirect to \(target) (HTTP \(response.statusCode)): it leaves loopback, and only 127.0.0.1, localhost and ::1 are measured"
        }
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let outcome: Result<Data, Error> = state.withLock { state in
            if let refused = state.refusedRedirect {
                return .failure(CorpusImage.FetchProblem(description: refused))
            } else if let error {
                return .failure(CorpusImage.FetchProblem(description: error.localizedDescription))
            } else if let status = (task.response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                return .failure(CorpusImage.FetchProblem(description: "HTTP status \(status)"))
            }
            return .success(state.body)
        }
        completion.finish(outcome)
    }
}

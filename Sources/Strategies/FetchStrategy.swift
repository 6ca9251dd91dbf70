import BenchCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSessionConfiguration on Linux
#endif

/// What a strategy hands to the renderer: the body in memory, or a file on disk.
public enum Payload: Sendable {
    case memory(Data)
    case file(URL)

    /// Bytes of the body (the file's size for `.file`).
    public var byteCount: Int {
        switch self {
        case .memory(let data):
            return data.count
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber
            return size?.intValue ?? 0
        }
    }
}

/// A finished fetch: the payload and what the server said about it.
public struct FetchOutcome: Sendable {
    public var payload: Payload
    /// 0 when the API does not report it (`Data(contentsOf:)`).
    public var statusCode: Int
    /// Content-Length as announced, or -1 when unknown.
    public var expectedContentLength: Int64

    public init(payload: Payload, statusCode: Int, expectedContentLength: Int64) {
        self.payload = payload
        self.statusCode = statusCode
        self.expectedContentLength = expectedContentLength
    }
}

/// One way of fetching an image, measured by the harness in a child process.
///
/// A strategy blocks until its fetch is complete (the child has nothing else to do);
/// files it writes go into `workDirectory`, which the harness deletes after the run.
/// `SendableMetatype`: the catalog's list of strategy types is shared by every thread.
public protocol FetchStrategy: AnyObject, SendableMetatype {
    /// The name used on the command line and in the CSV.
    static var name: String { get }
    /// One line for `bench list`.
    static var summary: String { get }

    /// The least memory the API's contract needs (the floor): the body once, or a streaming buffer.
    static var floor: FetchFloor { get }
    /// Lines for the table that names holders' roles, tried before the built-in ones.
    static var holderRoles: [HolderRoleRule] { get }

    init(workDirectory: URL)

    /// Fetches `url`; throws `FetchError` for transport failures, non-2xx statuses and short bodies.
    func fetch(url: URL) throws -> FetchOutcome
}

extension FetchStrategy {
    /// Undeclared: the cell's floor is unknown.
    public static var floor: FetchFloor { .undeclared }
    /// None of its own: the built-in table names its holders.
    public static var holderRoles: [HolderRoleRule] { [] }
}

extension FetchStrategy {
    /// Takes the strategy's code path once on a small resource so that lazy set-up
    /// (sessions, connection, libcurl handles, dispatch queues) happens before the baseline.
    public func warmUp(url: URL) throws {
        let outcome = try fetch(url: url)
        if case .file(let file) = outcome.payload {
            try? FileManager.default.removeItem(at: file)
        }
    }
}

public enum FetchError: Error, CustomStringConvertible, Equatable {
    /// The request did not complete: connection refused, reset, timed out, ...
    case transport(TransportFailure)
    /// The server answered with a status outside 200...299.
    case httpStatus(Int)
    /// Fewer (or more) body bytes than Content-Length announced.
    case lengthMismatch(expected: Int64, received: Int)
    /// The body could not be stored (download moved, file written).
    case storage(String)
    /// The body is not what the server said it is (a strategy that decodes while fetching).
    case undecodable(String)

    public var description: String {
        switch self {
        case .transport(let failure): return "transport error: \(failure)"
        case .httpStatus(let code): return "HTTP status \(code)"
        case .lengthMismatch(let expected, let received):
            return "body has \(received) bytes but Content-Length announced \(expected)"
        case .storage(let message): return "cannot store the body: \(message)"
        case .undecodable(let message): return "cannot decode the body: \(message)"
        }
    }
}

/// Why a request did not complete, with the code the API gave.
public enum TransportFailure: Sendable, Equatable, CustomStringConvertible {
    /// URLSession's error: its code in NSURLErrorDomain (`URLError.Code`) and what it said.
    case urlSession(code: Int, message: String)
    /// libcurl's CURLcode and its own text for it.
    case curl(code: Int32, message: String)
    case curlInitFailed
    /// libcurl followed `followed` redirects and stopped at its limit.
    case tooManyRedirects(followed: Int, limit: Int)
    /// `Data(contentsOf:)` failed; the URLError code when one is inside its error.
    case contentsOf(urlErrorCode: Int?, message: String)
    case noHTTPResponse
    /// A publisher finished without sending its value.
    case noValue
    case badURL(String)
    /// A user's own HTTP client threw an error of its own (not a ``FetchError``): its type and description.
    case client(type: String, message: String)

    /// URLSession's error (a URLError, or an NSError in NSURLErrorDomain as FoundationNetworking reports it).
    public init(urlSessionError error: Error) {
        if let urlError = error as? URLError {
            self = .urlSession(code: urlError.code.rawValue, message: urlError.localizedDescription)
            return
        }
        let nsError = error as NSError
        let message = nsError.userInfo[NSLocalizedDescriptionKey] as? String ?? String(describing: error)
        self = .urlSession(
            code: nsError.domain == NSURLErrorDomain ? nsError.code : URLError.Code.unknown.rawValue,
            message: message
        )
    }

    public var description: String {
        switch self {
        case .urlSession(let code, let message): return "URLError \(code): \(Self.timeout(code: code) ?? message)"
        case .curl(let code, let message): return "libcurl error \(code): \(message)"
        case .curlInitFailed: return "curl_easy_init failed"
        case .tooManyRedirects(let followed, let limit):
            return "too many redirects (gave up after following \(followed); the limit is \(limit))"
        case .contentsOf(let code, let message):
            if let code, let timeout = Self.timeout(code: code) {
                return "Data(contentsOf:) failed with URLError \(code): \(timeout)"
            }
            return "Data(contentsOf:) failed (it does not say why or with which status): \(message)"
        case .noHTTPResponse: return "no HTTP response"
        case .noValue: return "the publisher finished without a value"
        case .badURL(let url): return "bad URL '\(url)': expected http(s)://host/..."
        case .client(let type, let message): return "\(type): \(message)"
        }
    }

    /// URLSession's own words for a timeout ("The operation could not be completed. (NSURLErrorDomain
    /// error -1001.)") say neither how long it waited nor which limit: the row says both.
    static func timeout(code: Int) -> String? {
        guard code == URLError.Code.timedOut.rawValue else { return nil }
        let seconds = URLSessionConfiguration.default.timeoutIntervalForRequest
        return String(
            format: "timed out after %.0f s without data from the server (URLSession's timeoutIntervalForRequest)",
            seconds
        )
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion sources' typed failure for their `Future`: every way the fetch can go
/// wrong, as one enum a caller can switch over.
package enum NetworkError: Error, Equatable, CustomStringConvertible {
    /// Not an http(s) URL with a host: rejected before any request.
    case badURL(String)
    /// The server answered outside 200...299.
    case badStatus(Int)
    /// The body is not what its Content-Type says (here: a JPEG whose header does not parse).
    case decodingFailed(String)
    /// Fewer (or more) bytes than Content-Length announced.
    case incompleteBody(expected: Int64, received: Int)
    /// URLSession could not complete the request.
    case transport(URLError.Code, String)

    package var description: String {
        switch self {
        case .badURL(let url): return "bad URL '\(url)': expected http(s)://host/..."
        case .badStatus(let code): return "HTTP status \(code)"
        case .decodingFailed(let message): return "cannot decode the body: \(message)"
        case .incompleteBody(let expected, let received):
            return "body has \(received) bytes but Content-Length announced \(expected)"
        case .transport(let code, let message): return "URLError \(code.rawValue): \(message)"
        }
    }

    /// The harness's error for this failure (the row's status follows from it).
    var fetchError: FetchError {
        switch self {
        case .badURL(let url): return .transport(.badURL(url))
        case .badStatus(let code): return .httpStatus(code)
        case .decodingFailed(let message): return .undecodable(message)
        case .incompleteBody(let expected, let received): return .lengthMismatch(expected: expected, received: received)
        case .transport(let code, let message): return .transport(.urlSession(code: code.rawValue, message: message))
        }
    }
}

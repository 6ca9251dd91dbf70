import LoopbackServer

/// The server faults a scroll can put on some of its rows, by command-line name.
package enum ScrollFault: String, CaseIterable, Codable, Sendable {
    case status404 = "status-404"
    case status500 = "status-500"
    /// 503 with Retry-After: 1 (the loader retries at once, as `retry(n)` does, ignoring it).
    case status503 = "status-503"
    /// 500 ms before the response head; the request succeeds.
    case slowFirstByte = "slow-first-byte"
    /// Content-Length announced, half the body sent, then FIN.
    case truncate
    /// Half the body sent, then RST.
    case reset
    /// Whole body, chunked, no Content-Length; the request succeeds.
    case chunked

    /// The server's fault for a body of `bodyBytes` bytes.
    package func serverFault(bodyBytes: Int) -> ServerFault {
        switch self {
        case .status404: return .status(404)
        case .status500: return .status(500)
        case .status503: return .status(503, retryAfterSeconds: 1)
        case .slowFirstByte: return .slowFirstByte(milliseconds: 500)
        case .truncate: return .truncate(afterBytes: bodyBytes / 2)
        case .reset: return .reset(afterBytes: bodyBytes / 2)
        case .chunked: return .chunked
        }
    }
}

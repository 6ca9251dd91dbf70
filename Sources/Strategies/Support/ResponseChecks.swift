import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps URLSession's (response, error) pair to an HTTP response with a 2xx status, or throws.
package func validateResponse(_ response: URLResponse?, error: Error?) throws -> HTTPURLResponse {
    if let error {
        throw FetchError.transport(TransportFailure(urlSessionError: error))
    }
    guard let http = response as? HTTPURLResponse else {
        throw FetchError.transport(.noHTTPResponse)
    }
    guard (200..<300).contains(http.statusCode) else {
        throw FetchError.httpStatus(http.statusCode)
    }
    return http
}

/// A body that is shorter than Content-Length was cut off: never measure it as a success.
package func checkLength(of received: Int, against response: HTTPURLResponse) throws {
    let expected = response.expectedContentLength
    if expected >= 0 && Int64(received) != expected {
        throw FetchError.lengthMismatch(expected: expected, received: received)
    }
}

/// The outcome of a 2xx response whose body is `payload`, checked against its Content-Length.
package func checkedOutcome(_ payload: Payload, of http: HTTPURLResponse) throws -> FetchOutcome {
    try checkLength(of: payload.byteCount, against: http)
    return FetchOutcome(
        payload: payload,
        statusCode: http.statusCode,
        expectedContentLength: http.expectedContentLength
    )
}

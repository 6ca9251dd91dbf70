import Foundation

/// A misbehaviour the server acts out for one request, chosen by the client with a query
/// string on any resource path (`/image.jpg?fault=truncate&afterBytes=1000`), so that
/// error handling can be tested against real sockets.
package struct ServerFault: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Respond with `code` (and a `Retry-After` header when given) instead of the resource.
        case status(code: Int, retryAfterSeconds: Int?)
        /// Wait before sending the response head.
        case slowFirstByte(delayMilliseconds: Int)
        /// Advertise the full `Content-Length`, send `afterBytes` body bytes, then close (FIN).
        case truncate(afterBytes: Int)
        /// Send `afterBytes` body bytes, then close with RST (`SO_LINGER` 0).
        case reset(afterBytes: Int)
        /// Send the body with `Transfer-Encoding: chunked` and no `Content-Length`.
        case chunked
        /// Answer 302 with a `Location` on the same path: `hops` more redirects before the
        /// resource, or (nil) a loop to the same URL forever, for testing a client's limit.
        case redirect(hops: Int?)
    }

    package var kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    package static func status(_ code: Int, retryAfterSeconds: Int? = nil) -> ServerFault {
        ServerFault(.status(code: code, retryAfterSeconds: retryAfterSeconds))
    }
    package static func slowFirstByte(milliseconds: Int) -> ServerFault {
        ServerFault(.slowFirstByte(delayMilliseconds: milliseconds))
    }
    package static func truncate(afterBytes: Int) -> ServerFault { ServerFault(.truncate(afterBytes: afterBytes)) }
    package static func reset(afterBytes: Int) -> ServerFault { ServerFault(.reset(afterBytes: afterBytes)) }
    package static let chunked = ServerFault(.chunked)
    /// `hops` redirects, then the resource; nil redirects to itself forever.
    package static func redirect(hops: Int? = nil) -> ServerFault { ServerFault(.redirect(hops: hops)) }

    /// The values accepted for the `fault` query item, in the order they are documented.
    package static let validNames = ["status", "slowFirstByte", "truncate", "reset", "chunked", "redirect"]

    /// Status codes a `status` fault may ask for. 1xx are interim responses: a request must
    /// still end with a final one, and NIO traps when a response ends after a 1xx head.
    package static let statusCodes = 200...599

    /// The query items that select this fault; `LoopbackServer.url(for:fault:)` appends them.
    package var queryItems: [URLQueryItem] {
        switch kind {
        case let .status(code, retryAfter):
            var items = [URLQueryItem(name: "fault", value: "status"), URLQueryItem(name: "code", value: String(code))]
            if let retryAfter { items.append(URLQueryItem(name: "retryAfter", value: String(retryAfter))) }
            return items
        case let .slowFirstByte(delay):
            return [
                URLQueryItem(name: "fault", value: "slowFirstByte"),
                URLQueryItem(name: "delayMs", value: String(delay)),
            ]
        case let .truncate(afterBytes):
            return [
                URLQueryItem(name: "fault", value: "truncate"),
                URLQueryItem(name: "afterBytes", value: String(afterBytes)),
            ]
        case let .reset(afterBytes):
            return [
                URLQueryItem(name: "fault", value: "reset"),
                URLQueryItem(name: "afterBytes", value: String(afterBytes)),
            ]
        case .chunked:
            return [URLQueryItem(name: "fault", value: "chunked")]
        case let .redirect(hops):
            return [URLQueryItem(name: "fault", value: "redirect")]
                + (hops.map { [URLQueryItem(name: "hops", value: String($0))] } ?? [])
        }
    }
}

extension ServerFault {
    /// Why a query string could not be turned into a fault; the server answers 400 with `message`.
    package struct ParseError: Error, Equatable, Sendable {
        package var message: String
    }

    /// Parses the query part of a request target (without the `?`). Returns nil when the
    /// query selects no fault, so plain query strings (cache busters) are still allowed.
    package static func parse(query: String?) throws(ParseError) -> ServerFault? {
        guard let query, !query.isEmpty else { return nil }
        let items = parseQueryItems(query)
        guard let name = items["fault"] else { return nil }

        func integer(_ key: String, range: ClosedRange<Int>) throws(ParseError) -> Int {
            guard let text = items[key] else {
                throw ParseError(message: "fault=\(name) needs \(key)=<integer>")
            }
            guard let value = Int(text), range.contains(value) else {
                throw ParseError(
                    message: "\(key) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'"
                )
            }
            return value
        }

        switch name {
        case "status":
            if let text = items["code"], let code = Int(text), (100...199).contains(code) {
                throw ParseError(
                    message: "code \(code) is an interim (1xx) status that cannot end a response; "
                        + "code must be an integer in \(statusCodes.lowerBound)...\(statusCodes.upperBound)"
                )
            }
            let code = try integer("code", range: statusCodes)
            let retryAfter = items["retryAfter"] == nil ? nil : try integer("retryAfter", range: 0...86_400)
            return .status(code, retryAfterSeconds: retryAfter)
        case "slowFirstByte":
            return .slowFirstByte(milliseconds: try integer("delayMs", range: 0...60_000))
        case "truncate":
            return .truncate(afterBytes: try integer("afterBytes", range: 0...Int(Int32.max)))
        case "reset":
            return .reset(afterBytes: try integer("afterBytes", range: 0...Int(Int32.max)))
        case "chunked":
            return .chunked
        case "redirect":
            return .redirect(hops: items["hops"] == nil ? nil : try integer("hops", range: 0...100))
        default:
            throw ParseError(message: "unknown fault '\(name)'; valid faults: \(validNames.joined(separator: ", "))")
        }
    }

    /// `a=1&b=2` into a dictionary (last value wins), percent-decoded.
    private static func parseQueryItems(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            result[key] = value
        }
        return result
    }
}

import NIOCore
import NIOHTTP1

/// Everything the handler needs to answer one request: decided up front from the request
/// head, the routes and the fault, so that writing it is mechanical.
struct ResponsePlan {
    /// How the connection is left once the body bytes are out.
    enum Ending: Equatable {
        /// Send the end of the message; keep the connection open if the client wants to.
        case complete
        /// Close without ending the message (FIN): the client sees fewer bytes than advertised.
        case truncate
        /// Close with RST (SO_LINGER 0): the client sees "connection reset by peer".
        case reset
    }

    var head: HTTPResponseHead
    /// The bytes to put on the wire, already cut short for truncate/reset; empty for HEAD.
    var body: ByteBuffer
    var delayBeforeHead: TimeAmount = .zero
    var ending: Ending = .complete
    /// The chunked fault writes the body in several pieces so clients see several chunks.
    var writeInPieces = false
    var closeAfterResponse = false
    /// A resource's whole body: a `Range` request gets a part of it (206).
    var acceptsRanges = false
}

/// Maps a request to a `ResponsePlan`: built-in routes, resources, 404, then the fault.
struct Router {
    /// Body of `/warmup`: the child's first tiny request, made once.
    static let warmupBody = ByteBuffer(repeating: UInt8(ascii: "w"), count: 1024)

    let state: ServerState

    /// Splits a request target into path and query (without the `?`).
    static func split(uri: String) -> (path: String, query: String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, nil) }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    func plan(for request: HTTPRequestHead) -> ResponsePlan {
        let (path, query) = Router.split(uri: request.uri)
        var plan: ResponsePlan
        do throws(ServerFault.ParseError) {
            let fault = try ServerFault.parse(query: query)
            plan = route(path: path, method: request.method)
            // A range of a resource, as RFC 9110 says; a faulty answer stays whole, so a client
            // can meet an origin that ignores Range (`?fault=chunked`: no length, no range).
            if let fault {
                apply(fault, to: &plan, path: path)
            } else if plan.acceptsRanges, let range = request.headers.first(name: "Range") {
                Router.applyRange(range, to: &plan)
            }
        } catch {
            plan = Router.text(.badRequest, error.message + "\n")
        }

        // HEAD: same headers as GET (NIO's encoder keeps Content-Length), no body bytes.
        if request.method == .HEAD || !plan.head.status.mayHaveResponseBody {
            plan.body = ByteBuffer()
            plan.ending = .complete
            plan.writeInPieces = false
        }
        if !plan.head.status.mayHaveResponseBody {
            // 204 and 304 have no body, so no framing either (RFC 9110 8.6, 15.3.5).
            plan.head.headers.remove(name: "Transfer-Encoding")
            if plan.head.status == .noContent { plan.head.headers.remove(name: "Content-Length") }
        }
        // The server only ever writes final responses: a 1xx head followed by the end of the
        // response is a NIO precondition failure (the process dies). Never let one through.
        if plan.head.status.code < 200 {
            plan = Router.text(
                .internalServerError,
                "refusing to send interim status \(plan.head.status.code) as a final response\n"
            )
        }
        plan.head.version = request.version
        if !request.isKeepAlive {
            plan.closeAfterResponse = true
            plan.head.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            plan.head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        return plan
    }

    private func route(path: String, method: HTTPMethod) -> ResponsePlan {
        let status: HTTPResponseStatus
        let body: ByteBuffer
        let contentType: String
        if path == "/warmup" {
            (status, body, contentType) = (.ok, Router.warmupBody, "application/octet-stream")
        } else if path.hasPrefix("/status/") {
            guard let code = Int(path.dropFirst("/status/".count)), (200...599).contains(code) else {
                return Router.text(.badRequest, "usage: /status/<code>, code in 200...599\n")
            }
            return Router.text(HTTPResponseStatus(statusCode: code), "status \(code)\n")
        } else if let resource = state.resource(for: path) {
            (status, body, contentType) = (.ok, resource.body, resource.contentType)
        } else {
            return Router.text(.notFound, "not found: \(path)\n")
        }

        guard method == .GET || method == .HEAD else {
            var plan = Router.text(.methodNotAllowed, "only GET and HEAD\n")
            plan.head.headers.add(name: "Allow", value: "GET, HEAD")
            return plan
        }
        var plan = Router.ok(status: status, body: body, contentType: contentType)
        plan.acceptsRanges = true
        plan.head.headers.add(name: "Accept-Ranges", value: "bytes")
        return plan
    }

    /// `bytes=FIRST-LAST`, `bytes=FIRST-` or `bytes=-SUFFIX`: 206 with that part and its
    /// Content-Range; a first byte past the end: 416. Several ranges, or another unit, are
    /// ignored (the whole body, 200), as RFC 9110 14.2 allows.
    static func applyRange(_ value: String, to plan: inout ResponsePlan) {
        let total = plan.body.readableBytes
        guard let bounds = byteRange(value, total: total) else { return }
        guard let (first, last) = bounds else {
            plan = Router.text(.rangeNotSatisfiable, "range not satisfiable: \(value)\n")
            plan.head.headers.add(name: "Content-Range", value: "bytes */\(total)")
            return
        }
        plan.body = plan.body.getSlice(at: plan.body.readerIndex + first, length: last - first + 1)!
        plan.head.status = .partialContent
        plan.head.headers.replaceOrAdd(name: "Content-Length", value: String(last - first + 1))
        plan.head.headers.add(name: "Content-Range", value: "bytes \(first)-\(last)/\(total)")
    }

    /// nil: no single byte range (ignore the header); .some(nil): unsatisfiable; else the bounds.
    static func byteRange(_ value: String, total: Int) -> (Int, Int)?? {
        let trimmed = String(value.filter { $0 != " " })
        guard trimmed.hasPrefix("bytes="), !trimmed.contains(",") else { return nil }
        let spec = trimmed.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let (head, tail) = (spec[..<dash], spec[spec.index(after: dash)...])
        if head.isEmpty {
            guard let suffix = Int(tail), suffix > 0 else { return nil }
            return total == 0 ? .some(nil) : (max(0, total - suffix), total - 1)
        }
        guard let first = Int(head), first >= 0 else { return nil }
        let last = tail.isEmpty ? total - 1 : Int(tail)
        guard let last, last >= first else { return nil }
        guard first < total else { return .some(nil) }
        return (first, min(last, total - 1))
    }

    private func apply(_ fault: ServerFault, to plan: inout ResponsePlan, path: String) {
        switch fault.kind {
        case let .status(code, retryAfter):
            plan = Router.text(HTTPResponseStatus(statusCode: code), "fault: status \(code)\n")
            if let retryAfter { plan.head.headers.add(name: "Retry-After", value: String(retryAfter)) }
        case let .slowFirstByte(delay):
            plan.delayBeforeHead = .milliseconds(Int64(delay))
        case let .truncate(afterBytes):
            // Content-Length stays the full size: that is what makes it a truncation.
            plan.body = plan.body.getSlice(at: plan.body.readerIndex, length: min(afterBytes, plan.body.readableBytes))!
            plan.ending = .truncate
        case let .reset(afterBytes):
            plan.body = plan.body.getSlice(at: plan.body.readerIndex, length: min(afterBytes, plan.body.readableBytes))!
            plan.ending = .reset
        case .chunked:
            plan.head.headers.remove(name: "Content-Length")
            plan.head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            plan.writeInPieces = true
        case let .redirect(hops):
            if hops == 0 { return }  // the last hop: the resource itself
            // Relative Location, so the client stays on this origin (127.0.0.1) whatever it is.
            let query = ServerFault.redirect(hops: hops.map { $0 - 1 }).queryItems
                .map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
            let target = (path.split(separator: "/").last.map(String.init) ?? "") + "?" + query
            plan = Router.text(.found, "redirect to \(target)\n")
            plan.head.headers.add(name: "Location", value: path.hasSuffix("/") ? "./?" + query : target)
        }
    }

    static func ok(status: HTTPResponseStatus, body: ByteBuffer, contentType: String) -> ResponsePlan {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Server", value: "LoopbackServer")
        return ResponsePlan(head: HTTPResponseHead(version: .http1_1, status: status, headers: headers), body: body)
    }

    static func text(_ status: HTTPResponseStatus, _ text: String) -> ResponsePlan {
        ok(status: status, body: ByteBuffer(string: text), contentType: "text/plain; charset=utf-8")
    }
}

import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A resource answers a single byte range as RFC 9110 says (206, Content-Range), a range past its
/// end with 416, and ignores several ranges or another unit (the whole body, 200); a faulty answer
/// stays whole. The image server reads headers this way before it admits a request.
@Suite struct RangeTests {
    static let body = Data((0..<1000).map { UInt8($0 % 251) })

    /// The status line, the headers (lower-cased names) and the body of one GET with `range`.
    func get(_ origin: LoopbackServer, _ path: String, range: String?) throws -> (Int, [String: String], Data) {
        let socket = try RawSocket(port: origin.port)
        let rangeLine = range.map { "Range: \($0)\r\n" } ?? ""
        _ = socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(rangeLine)Connection: close\r\n\r\n")
        let whole = socket.readAll().data
        let separator = whole.range(of: Data("\r\n\r\n".utf8))!
        let head = String(decoding: whole[..<separator.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1])!
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        return (status, headers, Data(whole[separator.upperBound...]))
    }

    /// A started origin serving `body` as /data.bin; the caller shuts it down.
    func origin() throws -> LoopbackServer {
        let origin = LoopbackServer()
        origin.addResource(path: "/data.bin", body: Self.body)
        try origin.start()
        return origin
    }

    @Test func aSingleRangeIsAnsweredAsAPart() throws {
        let origin = try origin()
        defer { origin.shutdown() }

        let (status, headers, part) = try get(origin, "/data.bin", range: "bytes=100-199")
        #expect(status == 206)
        #expect(headers["content-range"] == "bytes 100-199/1000")
        #expect(part == Self.body[100..<200])

        let (_, tailHeaders, tail) = try get(origin, "/data.bin", range: "bytes=990-")
        #expect(tailHeaders["content-range"] == "bytes 990-999/1000")
        #expect(tail == Self.body[990...])

        let (_, suffixHeaders, suffix) = try get(origin, "/data.bin", range: "bytes=-5")
        #expect(suffixHeaders["content-range"] == "bytes 995-999/1000")
        #expect(suffix == Self.body[995...])

        let (beyondStatus, beyondHeaders, _) = try get(origin, "/data.bin", range: "bytes=1000-1100")
        #expect(beyondStatus == 416)
        #expect(beyondHeaders["content-range"] == "bytes */1000")

        let (plainStatus, plainHeaders, whole) = try get(origin, "/data.bin", range: nil)
        #expect(plainStatus == 200 && whole == Self.body)
        #expect(plainHeaders["accept-ranges"] == "bytes")
    }

    @Test func severalRangesAndFaultsGetTheWholeBody() throws {
        let origin = try origin()
        defer { origin.shutdown() }

        let (status, _, whole) = try get(origin, "/data.bin", range: "bytes=0-9,20-29")
        #expect(status == 200 && whole == Self.body)
        let (unitStatus, _, _) = try get(origin, "/data.bin", range: "items=0-9")
        #expect(unitStatus == 200)
        let faulty = origin.url(for: "/data.bin", fault: .status(503)).absoluteString
        let path = String(faulty[faulty.range(of: "/data.bin")!.lowerBound...])
        let (faultStatus, faultHeaders, _) = try get(origin, path, range: "bytes=0-9")
        #expect(faultStatus == 503 && faultHeaders["content-range"] == nil)
    }
}

import CLibCurl
import Foundation

/// One libcurl easy handle, kept for the strategy's lifetime so that the connection opened
/// by the warm-up is reused by the measured fetch (as URLSession keeps its connections).
/// Every received chunk is handed to the caller's closure: where it goes is the strategy's choice.
final class CurlTransfer {
    private let handle: UnsafeMutableRawPointer

    /// Redirects followed before giving up. Through the API libcurl's default is unlimited
    /// (-1), so a redirect loop spun (~2,700 requests in 1.6 s) until something else failed.
    /// URLSession (FoundationNetworking) gives up with NSURLErrorHTTPTooManyRedirects after
    /// following 20, as measured against the loopback server's redirect loop (21 requests,
    /// StrategiesTests/RedirectTests): the libcurl strategies now do the same.
    static let maximumRedirects = 20

    init() throws {
        guard let handle = curl_easy_init() else { throw FetchError.transport(.curlInitFailed) }
        self.handle = handle
    }

    /// An upload's headers, built at the first upload: its type, and no `Expect: 100-continue`
    /// (libcurl sends it for a large body, then waits a second for a 100 a server need not send).
    private var headerList: UnsafeMutablePointer<curl_slist>?

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
    }

    private func uploadHeaders() -> UnsafeMutablePointer<curl_slist>? {
        if headerList == nil {
            headerList = curl_slist_append(nil, "Content-Type: application/octet-stream")
            headerList = curl_slist_append(headerList, "Expect:")
        }
        return headerList
    }

    struct Response {
        var statusCode: Int
        /// Content-Length as announced, or -1 when unknown.
        var expectedContentLength: Int64
    }

    /// GETs `url` (or POSTs `posting`, which the caller keeps alive until this returns), calling
    /// `receive` with each chunk of the answer as libcurl delivers it. `receive` returns
    /// false to abort (its storage failed), which ends the transfer with CURLE_WRITE_ERROR.
    /// `announced` is called once, before the first chunk, with Content-Length (-1 if unknown).
    /// `range` (`FIRST-LAST`) asks for part of the body; `maximumBytes` ends the transfer once that
    /// many have been received (a server that ignores the range sends no more than that into memory).
    func get(
        _ url: URL,
        posting body: UnsafeRawBufferPointer? = nil,
        range: String? = nil,
        maximumBytes: Int? = nil,
        announced: @escaping (Int64) -> Void = { _ in },
        receive: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws -> Response {
        let context = ChunkReceiver(handle: handle, announced: announced, receive: receive)
        context.remaining = maximumBytes
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }

        try check(curlshim_setopt_string(handle, CURLOPT_URL, url.absoluteString))
        try check(curlshim_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        try check(curlshim_setopt_long(handle, CURLOPT_MAXREDIRS, Self.maximumRedirects))
        try check(curlshim_setopt_long(handle, CURLOPT_NOSIGNAL, 1))  // no SIGALRM in a threaded process
        try check(curlshim_setopt_write_callback(handle, curlWriteCallback))
        try check(curlshim_setopt_pointer(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque()))
        // The handle is kept: every transfer sets its method and headers, whatever the last one was.
        let headers = body == nil ? nil : uploadHeaders()
        try check(curlshim_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers.map { UnsafeMutableRawPointer($0) }))
        if let body {
            try check(curlshim_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            try check(
                curlshim_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
            )
        } else {
            try check(curlshim_setopt_long(handle, CURLOPT_HTTPGET, 1))
        }
        if let range {
            try check(curlshim_setopt_string(handle, CURLOPT_RANGE, range))
        } else {
            try check(curlshim_setopt_pointer(handle, CURLOPT_RANGE, nil))
        }

        let result = curl_easy_perform(handle)
        if let storageError = context.failure {
            throw storageError
        }
        if !(result == CURLE_WRITE_ERROR && context.remaining == 0) { try check(result) }

        var status = 0
        try check(curlshim_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status))
        var length: curl_off_t = -1
        try check(curlshim_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length))
        return Response(statusCode: status, expectedContentLength: Int64(length))
    }

    /// The last response's header `name` (the last one of that name), or nil.
    func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
            let value = found?.pointee.value
        else { return nil }
        return String(cString: value)
    }

    private func check(_ code: CURLcode) throws {
        if code == CURLE_TOO_MANY_REDIRECTS {
            var followed = 0
            _ = curlshim_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &followed)
            throw FetchError.transport(.tooManyRedirects(followed: followed, limit: Self.maximumRedirects))
        }
        guard code == CURLE_OK else {
            throw FetchError.transport(
                .curl(code: Int32(code.rawValue), message: String(cString: curl_easy_strerror(code)))
            )
        }
    }
}

/// The write callback's context: the strategy's closure, and why it stopped, if it did.
private final class ChunkReceiver {
    let handle: UnsafeMutableRawPointer
    let announced: (Int64) -> Void
    let receive: (UnsafeRawBufferPointer) -> Bool
    var headersSeen = false
    var failure: FetchError?
    /// Bytes still wanted before the transfer is ended on purpose; nil: all of them.
    var remaining: Int?

    init(
        handle: UnsafeMutableRawPointer,
        announced: @escaping (Int64) -> Void,
        receive: @escaping (UnsafeRawBufferPointer) -> Bool
    ) {
        self.handle = handle
        self.announced = announced
        self.receive = receive
    }

    /// The headers are complete by the first body byte, so Content-Length is known here.
    func announceOnce() {
        guard !headersSeen else { return }
        headersSeen = true
        var length: curl_off_t = -1
        if curlshim_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) != CURLE_OK { length = -1 }
        announced(Int64(length))
    }
}

/// libcurl's CURLOPT_WRITEFUNCTION: returning fewer bytes than given aborts the transfer.
private func curlWriteCallback(
    data: UnsafeMutablePointer<CChar>?,
    size: Int,
    count: Int,
    context: UnsafeMutableRawPointer?
) -> Int {
    let receiver = Unmanaged<ChunkReceiver>.fromOpaque(context!).takeUnretainedValue()
    let byteCount = size * count
    receiver.announceOnce()
    let wanted = min(byteCount, receiver.remaining ?? byteCount)
    guard receiver.receive(UnsafeRawBufferPointer(start: data, count: wanted)) else {
        receiver.failure = .storage("the received bytes could not be stored")
        return 0
    }
    guard let remaining = receiver.remaining else { return byteCount }
    receiver.remaining = remaining - wanted
    // Fewer than given ends the transfer: `get` knows it was asked for, by `remaining` at 0.
    return remaining - wanted == 0 ? 0 : byteCount
}

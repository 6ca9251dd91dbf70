import BenchCore
import Foundation

/// libcurl POSTing bodies on a kept-alive connection, the answer collected in memory as
/// `CurlMemoryStrategy` collects it: the load generator's client for `POST /image`. Not a strategy
/// (nothing is fetched with it to be measured); a body is sent from its own bytes.
package final class CurlUpload {
    private let transfer: Result<CurlTransfer, Error>

    package init() {
        transfer = Result { try CurlTransfer() }  // fails when libcurl cannot allocate a handle: each post says so
    }

    package func post(url: URL, body: Data) throws -> FetchOutcome {
        let transfer = try transfer.get()
        let buffer = GrowingBuffer()
        let response = try body.withUnsafeBytes { bytes in
            try transfer.get(
                url,
                posting: bytes,
                announced: { length in if length > 0 { buffer.reserve(Int(length)) } },
                receive: { chunk in buffer.append(chunk) }
            )
        }
        try checkStatusAndLength(response, received: buffer.count)
        return FetchOutcome(
            payload: .memory(buffer.takeData()),
            statusCode: response.statusCode,
            expectedContentLength: response.expectedContentLength
        )
    }
}

/// How `POST /image` holds the uploaded image until it renders: `collect`, the whole body in memory
/// (Hummingbird's `collect(upTo:)`), or `file`, streamed to a file a chunk at a time, each chunk
/// written before the next is read (the body's backpressure keeps the rest in the socket).
package enum UploadBody: String, Codable, Sendable, CaseIterable {
    case collect, file
}

/// The route a cell measures: `GET /image/NAME` (the server fetches the image from the origin with a
/// strategy) or `POST /image` (the image is the request body, held as `UploadBody` says).
package enum ImageRoute: Hashable, Codable, Sendable {
    case get
    case post(UploadBody)

    /// server.csv's `route`: get or post.
    package var name: String {
        switch self {
        case .get: "get"
        case .post: "post"
        }
    }

    /// server.csv's `body`: collect or file for post, none for get (the server holds no upload).
    package var bodyName: String {
        switch self {
        case .get: Self.noBody
        case .post(let body): body.rawValue
        }
    }

    /// The `body` of a GET, and of a server.csv written before the column was.
    package static let noBody = "none"

    /// The strategy a POST cell records and its child is given: it fetches nothing.
    package static let noStrategy = "none"
}

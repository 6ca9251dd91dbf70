import Strategies

/// What a strategy hands to the renderer: the body in memory (`.memory(Data)`), or a file on
/// disk (`.file(URL)`), which the harness decodes straight from the file.
public typealias Payload = Strategies.Payload

/// A finished fetch: the ``Payload``, the HTTP status (0 when the API does not report one) and
/// the Content-Length the server announced (-1 when unknown).
public typealias FetchOutcome = Strategies.FetchOutcome

/// Why a fetch failed: `.transport(TransportFailure)`, `.httpStatus(Int)`,
/// `.lengthMismatch(expected:received:)`, `.storage(String)` or `.undecodable(String)`.
/// Any other error a strategy throws is reported as a transport error with its description.
public typealias FetchError = Strategies.FetchError

/// What went wrong in transfer, in `FetchError.transport(_:)`: a user's strategy throws
/// `.client(type:message:)` for its client's own errors, or lets the harness wrap any error it
/// throws that way.
public typealias TransportFailure = Strategies.TransportFailure

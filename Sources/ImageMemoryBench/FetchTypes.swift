import BenchCore
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

/// A strategy's floor rule (``ImageFetchStrategy/floor``): `.bodyInMemory`,
/// `.streamingBuffer(bytes:)` or `.undeclared`.
public typealias FetchFloor = BenchCore.FetchFloor

/// A renderer's floor rule (``ImageRenderer/floor``): `.fullBitmap`, `.scaledBitmap`, `.nothing`
/// or `.undeclared`.
public typealias RenderFloor = BenchCore.RenderFloor

/// What a holder of the heap peak is for: `.body`, `.bodyBuffer`, `.bitmap`, `.decoder`, `.cache`, `.other`.
public typealias HolderRole = BenchCore.HolderRole

/// One line of the table that names holders' roles (``ImageFetchStrategy/holderRoles``).
public typealias HolderRoleRule = BenchCore.HolderRoleRule

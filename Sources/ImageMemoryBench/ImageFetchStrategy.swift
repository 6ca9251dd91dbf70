import BenchCore
import Foundation

/// A way of fetching an image that you want measured: your own loader, or a third-party client.
///
/// The harness runs every trial in a fresh child process (your own executable, re-executed):
/// it creates the strategy with ``init(workDirectory:)``, calls ``fetch(url:)`` once on a small
/// resource of the same server to warm up (sessions, connection pools, lazy set-up), then
/// resets its peaks and measures one more ``fetch(url:)`` of the image, and the decode, if asked.
///
/// Register your strategies with ``BenchMain/main(strategies:renderers:)``; `bench list` then shows them,
/// marked as yours, and `--strategy NAME` measures them like the built-in ones.
///
/// ```swift
/// struct MyLoader: ImageFetchStrategy {
///     static let name = "my-loader"
///     static let summary = "my app's image loader, body in memory"
///     init(workDirectory: URL) {}
///     func fetch(url: URL) async throws -> FetchOutcome {
///         let (data, response) = try await myLoad(url)
///         return FetchOutcome(payload: .memory(data), statusCode: response.statusCode,
///                             expectedContentLength: response.expectedContentLength)
///     }
/// }
/// ```
public protocol ImageFetchStrategy: Sendable {
    /// The name used with `--strategy` and in the results' `strategy` column: letters, digits,
    /// `-`, `_` or `.`, distinct from every built-in strategy's name.
    static var name: String { get }

    /// One line for `bench list`.
    static var summary: String { get }

    /// The least memory your API's contract needs at once, whatever the implementation: the
    /// cell's floor, against which the summary shows the excess. `.bodyInMemory` when it hands
    /// over the whole body in memory, `.streamingBuffer(bytes:)` when it streams the body to a
    /// file; the default, `.undeclared`, leaves the `floor_bytes` column empty.
    static var floor: FetchFloor { get }

    /// Lines for the table that names what each holder of the heap peak is for (holders.csv's
    /// `role`), tried before the built-in lines: your client's buffers, your cache. Default: none.
    static var holderRoles: [HolderRoleRule] { get }

    /// Creates the strategy for one trial. Files it writes belong in `workDirectory`, which the
    /// harness removes after the run.
    init(workDirectory: URL)

    /// Fetches `url` and returns the body, in memory or in a file in the work directory.
    ///
    /// Throw ``FetchError`` for a failed transfer (`FetchError.httpStatus(_:)` for a status
    /// outside 200...299, `FetchError.lengthMismatch(expected:received:)` for a short body):
    /// the trial's row then says what went wrong. The harness waits for this call on a thread of
    /// its own; nothing else runs in the child meanwhile.
    func fetch(url: URL) async throws -> FetchOutcome
}

extension ImageFetchStrategy {
    /// Undeclared: the cells of this strategy have no floor.
    public static var floor: FetchFloor { .undeclared }
    /// None: the built-in table names the holders.
    public static var holderRoles: [HolderRoleRule] { [] }
}

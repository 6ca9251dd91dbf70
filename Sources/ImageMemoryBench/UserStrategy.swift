import BenchCore
import Foundation
import Strategies

/// Puts a user's async ``ImageFetchStrategy`` behind the harness's blocking strategy protocol:
/// the child's trial thread waits while the fetch runs on the concurrency pool.
final class UserStrategy<Loader: ImageFetchStrategy>: Strategies.FetchStrategy {
    static var name: String { Loader.name }
    static var summary: String { Loader.summary }
    static var floor: FetchFloor { Loader.floor }
    static var holderRoles: [HolderRoleRule] { Loader.holderRoles }

    private let loader: Loader

    init(workDirectory: URL) {
        loader = Loader(workDirectory: workDirectory)
    }

    func fetch(url: URL) throws -> FetchOutcome {
        let loader = self.loader
        do {
            return try runBlocking { try await loader.fetch(url: url) }
        } catch let error as FetchError {
            throw error
        } catch {
            // A client's own error (a timeout, a refused connection): the row says it failed to
            // transfer, in the client's words, rather than blaming the harness.
            throw FetchError.transport(
                .client(type: String(describing: type(of: error)), message: String(describing: error))
            )
        }
    }
}

extension ImageFetchStrategy {
    /// This strategy as the catalog holds it.
    package static var catalogEntry: any Strategies.FetchStrategy.Type { UserStrategy<Self>.self }
}

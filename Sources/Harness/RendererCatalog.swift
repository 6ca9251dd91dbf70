import BenchCore
import Synchronization

/// Every renderer `--render` accepts: the built-in ones, then those a user's executable registers
/// at start-up (ImageMemoryBench's `BenchMain`), in the parent and in every child alike.
package enum RendererCatalog {
    package static let builtIn: [any RenderStrategy.Type] = [
        BuiltInRenderer<NoRender>.self, BuiltInRenderer<FullRender>.self, BuiltInRenderer<ThumbnailRender>.self,
        BuiltInRenderer<StreamRender>.self,
    ]

    private static let registeredByUser = Mutex<[any RenderStrategy.Type]>([])

    /// The user's renderers, in the order they were registered.
    package static var user: [any RenderStrategy.Type] { registeredByUser.withLock { $0 } }

    package static var available: [any RenderStrategy.Type] { builtIn + user }

    package static var names: [String] { available.map { $0.name } }

    package static func renderer(named name: String) -> (any RenderStrategy.Type)? {
        available.first { $0.name == name }
    }

    /// Whether `name` is one of the user's renderers (`bench list` marks those).
    package static func isUser(_ name: String) -> Bool {
        user.contains { $0.name == name }
    }

    /// Adds `renderers` to the catalog. A name must be new (not a built-in's or another of the
    /// user's) and follow ``CatalogName``'s rule; nothing is added when one is refused.
    package static func registerUserRenderers(_ renderers: [any RenderStrategy.Type]) throws(RendererRegistrationError)
    {
        var taken = names
        for renderer in renderers {
            let name = renderer.name
            guard CatalogName.isUsable(name) else {
                throw RendererRegistrationError("renderer name '\(name)' must be \(CatalogName.rule)")
            }
            guard !taken.contains(name) else {
                throw RendererRegistrationError(
                    "renderer name '\(name)' is already taken; names in use: "
                        + taken.joined(separator: ", ")
                )
            }
            taken.append(name)
        }
        registeredByUser.withLock { $0 += renderers }
    }
}

/// A user's renderer whose name cannot be registered; the message names the problem and the names in use.
package struct RendererRegistrationError: Error, CustomStringConvertible, Sendable {
    package var description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import Harness
import Strategies
import Testing

/// A user's renderer names are checked before anything is registered: a clash with a built-in
/// renderer, the same name twice, or a name that cannot be typed on a command line is refused with
/// the names in use. (Only refusals are tested here: a registration that succeeds would change the
/// catalog for every other test in this process; the example package registers one for real.)
@Suite struct RendererRegistrationTests {
    struct Named<Name: RendererName>: RenderStrategy {
        static var name: String { Name.value }
        static var summary: String { "test renderer" }
        init(limits: RenderLimits) {}
        func warmUp(image: URL?) throws {}
        func render(_ payload: Payload) throws -> RenderedImage? { nil }
    }
    protocol RendererName { static var value: String { get } }
    enum BuiltInName: RendererName { static let value = "thumbnail" }
    enum SpacedName: RendererName { static let value = "my renderer" }
    enum EmptyName: RendererName { static let value = "" }
    enum FineName: RendererName { static let value = "my-renderer" }

    @Test func aBuiltInNameIsRefusedWithTheNamesInUse() {
        do {
            try RendererCatalog.registerUserRenderers([Named<BuiltInName>.self])
            Issue.record("a renderer named 'thumbnail' was registered")
        } catch {
            #expect(error.description.contains("'thumbnail' is already taken"))
            #expect(error.description.contains("none, full, thumbnail"))
        }
        #expect(RendererCatalog.user.isEmpty)
    }

    @Test func theSameNameTwiceIsRefusedAndNothingIsRegistered() {
        #expect(throws: RendererRegistrationError.self) {
            try RendererCatalog.registerUserRenderers([Named<FineName>.self, Named<FineName>.self])
        }
        #expect(RendererCatalog.user.isEmpty)
        #expect(RendererCatalog.renderer(named: "my-renderer") == nil)
    }

    @Test func untypeableNamesAreRefused() {
        #expect(throws: RendererRegistrationError.self) {
            try RendererCatalog.registerUserRenderers([Named<SpacedName>.self])
        }
        #expect(throws: RendererRegistrationError.self) {
            try RendererCatalog.registerUserRenderers([Named<EmptyName>.self])
        }
        #expect(RendererCatalog.user.isEmpty)
    }

    @Test func theBuiltInRenderersAreTheCatalogsFirstEntries() {
        #expect(RendererCatalog.builtIn.map { $0.name } == ["none", "full", "thumbnail", "stream"])
        #expect(RendererCatalog.names.prefix(4) == ["none", "full", "thumbnail", "stream"])
    }
}

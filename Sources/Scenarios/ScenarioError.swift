/// A scenario that cannot be set up or run, with a message a person can act on.
public struct ScenarioError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

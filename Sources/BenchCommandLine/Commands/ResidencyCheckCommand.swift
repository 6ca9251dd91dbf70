import ArgumentParser
import BenchCore
import Foundation
import Harness

/// `bench _residency-check --allocator A`: the known-answer child of the residency snapshot
/// (`ResidencyKnownAnswer`), run by the tests with jemalloc preloaded or not. Prints its report as JSON.
struct ResidencyCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_residency-check",
        abstract: "Check the residency snapshot against the kernel's accounts (internal: run by the tests).",
        shouldDisplay: false
    )

    @Option(
        help: "The allocator this process runs with: \(Allocator.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var allocator: Allocator = .system

    func run() throws {
        let report = try ResidencyKnownAnswer.run(allocator: allocator)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try FileHandle.standardOutput.write(contentsOf: encoder.encode(report))
    }
}

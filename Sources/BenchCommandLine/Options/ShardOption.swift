import ArgumentParser
import BenchCore
import Foundation

/// `--shard i/n` on run and corpus: measure only this machine's part of the work, and record it
/// (shard.json) for `bench merge`.
struct ShardOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Measure only part i of n (i counts from 1: 1/4 ... 4/4), for splitting the work over machines; "
                + "`bench merge` joins the folders. A corpus splits by each file's bytes, a matrix by each cell's name: "
                + "the same parts on every machine, every item in exactly one part.",
            valueName: "i/n"
        ),
        transform: { try ShardOption.parse($0) }
    )
    var shard: Shard?

    static func parse(_ text: String) throws -> Shard {
        guard let shard = Shard(text) else { throw ValidationError("\(Shard.usage); got '\(text)'") }
        return shard
    }
}

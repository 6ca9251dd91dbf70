import ArgumentParser
import Foundation

/// The checks every command's `--out` shares.
enum OutOption {
    /// An empty `--out` (an unset variable in a script: `--out "$DIR"`) would write into the current
    /// folder, perhaps a repository: refused as bad input (exit 64). `instead` says what to give.
    static func validate(_ out: String?, instead: String = "a folder (or no --out for a new runs/<UTC time>/)") throws {
        if let out, out.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--out is empty; give \(instead)")
        }
    }
}

/// `--out`, declared once: where the command writes (`D` says what it writes there).
struct OutFolderOption<D: OutDefaults>: ParsableArguments {
    @Option(help: ArgumentHelp(D.outHelp))
    var out: String?

    func validate() throws {
        try OutOption.validate(out, instead: D.outInstead)
    }
}

/// What `--replace` overwrites in this command's `--out`.
protocol ReplaceDefaults {
    /// "an earlier run's files", "an earlier sweep's sweep.csv", ...
    static var replacedFiles: String { get }
}

/// `--replace`, declared once: run, sweep, corpus and merge refuse to overwrite an earlier run's
/// rows in `--out` unless it is given.
struct ReplaceOption<D: ReplaceDefaults>: ParsableArguments {
    @Flag(help: ArgumentHelp("Overwrite \(D.replacedFiles) in --out (refused by default, naming that run)."))
    var replace = false
}

/// `--fixture-cache`, declared once: run, serve and fixture (through FixtureOptions), sweep and
/// scenario list-scroll.
struct FixtureCacheOption: ParsableArguments {
    @Option(
        help:
            "Where generated fixtures are cached (default: image-memory-bench/fixtures under $XDG_CACHE_HOME, else $HOME/.cache)."
    )
    var fixtureCache: String?

    var directory: URL { FixtureOptions.cacheDirectory(fixtureCache) }
}

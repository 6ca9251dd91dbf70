/// Exit statuses shared by `bench`, its subcommands and the trial child.
/// Distinct values so that CI and scripts can tell "the code regressed" from "the run broke".
package enum BenchExitCode: Int32, Sendable {
    case success = 0
    /// `bench compare`: a cell is worse than its threshold allows.
    case regression = 2
    /// One or more trials failed (HTTP error, decode error, crash, timeout), or a cell is missing.
    case runFailed = 3
    /// `bench compare`: there is no baseline to compare with.
    case noBaseline = 5
    /// `bench merge`: the folders are not shards of one measurement (settings, harness, libraries or
    /// corpus differ, or a shard is given twice).
    case shardsDiffer = 6
    /// `bench merge`: a shard of the cover is missing, incomplete or still being written (and
    /// --partial was not given).
    case shardsMissing = 7
    /// Bad command-line input (sysexits' EX_USAGE).
    case usage = 64
    /// `bench report`: an input file is malformed (EX_DATAERR).
    case badInput = 65
    /// `bench report`: an input file is missing, e.g. no trials.csv yet (EX_NOINPUT).
    case noInput = 66
    /// The harness itself could not work: server did not start, fixture not writable (EX_SOFTWARE).
    case internalError = 70
    /// The output folder cannot be created or written, found before the first trial (EX_CANTCREAT).
    case cannotCreateOutput = 73
    /// Writing the output failed during the run (disk full, folder removed): the rows were kept
    /// elsewhere, in a rescue folder or on stderr, and the message says where (EX_IOERR).
    case outputLost = 74
    /// Another bench run holds the output folder's lock, or another server the port `bench serve`
    /// was asked for (EX_TEMPFAIL: try again later).
    case outputBusy = 75
    /// Stopped by SIGHUP after writing what was measured (128 + SIGHUP).
    case hangup = 129
    /// Stopped by SIGINT after writing what was measured (128 + SIGINT).
    case interrupted = 130
    /// Stopped by SIGTERM after writing what was measured (128 + SIGTERM).
    case terminated = 143
}

import ArgumentParser
import Measuring

extension BenchFailure {
    /// Prints the message and gives the status to throw (`throw failure.reported()`): ArgumentParser
    /// then exits with it after the command's defers ran (it would map any other error to 1).
    func reported() -> ExitCode {
        printError("bench: \(description)")
        return ExitCode(code.rawValue)
    }
}

/// Runs a measurement and ends the command with its status: a failure before the first trial is
/// printed and becomes its status; an end other than success (`MeasurementEnd`) its own.
func measuring(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as BenchFailure {
        throw failure.reported()
    } catch let end as MeasurementEnd {
        throw ExitCode(end.status)
    }
}

/// The value of a step before measuring, or its failure printed and turned into its status.
func measuringFailure<Value>(_ body: () throws -> Value) throws -> Value {
    do {
        return try body()
    } catch let failure as BenchFailure {
        throw failure.reported()
    }
}

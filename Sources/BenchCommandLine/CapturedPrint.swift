import BenchCore

/// Every `print` of this module, as Swift's, except that a test running a command in-process keeps
/// the words (`CapturedConsole`).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    CapturedConsole.print(items, separator: separator, terminator: terminator)
}

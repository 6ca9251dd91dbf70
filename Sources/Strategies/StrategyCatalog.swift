/// Every strategy the harness can measure, by command-line name.
public enum StrategyCatalog {
    public static let all: [any FetchStrategy.Type] = [
        DataTaskStrategy.self,
        DownloadTaskStrategy.self,
        AsyncDataStrategy.self,
        AsyncDownloadStrategy.self,
        DataStreamStrategy.self,
        DataPublisherStrategy.self,
        DownloadPublisherStrategy.self,
        FutureStrategy.self,
        ContentsOfStrategy.self,
        CurlMemoryStrategy.self,
        CurlFileStrategy.self,
    ]

    /// Known-answer strategies that check the probe; runnable by name, left out of `all`.
    package static let calibration: [any FetchStrategy.Type] = [
        CalibrationSpikeStrategy.self, CalibrationReallocStrategy.self,
    ]

    /// The built-in strategies and the user's (`registerUserStrategies`), by name.
    package static var names: [String] { available.map { $0.name } }

    package static func strategy(named name: String) -> (any FetchStrategy.Type)? {
        (available + calibration).first { $0.name == name }
    }
}

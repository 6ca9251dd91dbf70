import BenchCore
import Foundation
import Harness
import Imaging

/// Everything the image server's measured child needs: what each request does (fetch with
/// `strategy` from `originURL`, or take a POST's body held as `upload`; render with `render`, answer
/// a JPEG of at most `maxPixel`), how the server runs that work (a fetch pool as wide as
/// `fetchThreads`, a render pool of `renderThreads` or a thread per request), and how it measures.
package struct ServerSpec: Codable, Sendable, Equatable, SettlingSpec {
    /// `ImageRoute.noStrategy` for a server measured on `POST /image` only: its GET answers 404.
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator = .system
    /// The parent's loopback origin: `GET /image/NAME` fetches `originURL/NAME`.
    package var originURL: URL
    /// Threads of the pool the blocking fetches run on: the requests the parent keeps in flight.
    package var fetchThreads: Int
    /// Threads of the render pool; nil: a thread per request (every decode at once).
    package var renderThreads: Int?
    /// Connections to one host the built-in URLSession strategies' shared session allows (raised to
    /// the load's C before any request); nil: as shipped (`URLSession.shared`, 6 on Linux).
    package var clientCap: Int?
    /// The answer's long side: a larger render is area-averaged down to it before it is encoded.
    package var maxPixel = 1024
    package var answerQuality = 80
    package var maxImagePixels = DecodeBudget.defaultMaxImagePixels
    /// What a render may produce and decode.
    package var renderLimits: RenderLimits { RenderLimits(maxPixel: maxPixel, maxImagePixels: maxImagePixels) }
    /// How `POST /image` holds its upload until it renders.
    package var upload = UploadBody.collect
    /// The largest upload `POST /image` takes (256 MiB, far past any image it renders): past it, 413.
    package var maxUploadBytes = ServerSpec.defaultMaxUploadBytes
    package static let defaultMaxUploadBytes = 256 << 20
    /// Where the child writes the port it listens on (`ServerPort`), its TMPDIR and its requests' files.
    package var workDirectory: URL
    /// The port to listen on; 0: a free one.
    package var port = 0
    /// Load from outside (`--listen`): the window opens as soon as the server listens, no control
    /// request comes, and the run's SIGINT is the child's end.
    package var listening = false
    package var sampleIntervalNanos: UInt64 = 1_000_000
    /// Blocks of at least this many bytes are recorded with their stacks, to name who holds the
    /// exact heap peak (0: none), as in a trial.
    package var holderThresholdBytes = TrialSpec.defaultHolderThresholdBytes
    /// The holder table's records: it holds the large blocks live now and those live at the peak,
    /// so it grows with the requests in flight (64 blocks each, twice), never under the trial's 4,096.
    package var holderTableCapacity: Int { max(4096, 128 * fetchThreads) }
    /// `--memory-budget`: requests are admitted while their predicted costs fit it (`AdmissionGate`); nil: no budget.
    package var memoryBudgetBytes: Int?
    /// `--workers`: at most this many image requests handled at once; nil: no count.
    package var workers: Int?
    /// `--queue`: requests that may wait for admission; past it, 503. nil: 4 x C.
    package var queueLimit: Int?
    /// The gate's limits, or nil when the server admits every request (neither a budget nor workers).
    package var admissionLimits: AdmissionGate.Limits? {
        guard memoryBudgetBytes != nil || workers != nil else { return nil }
        return AdmissionGate.Limits(
            budgetBytes: memoryBudgetBytes,
            workers: workers,
            queueLimit: queueLimit ?? Self.defaultQueuePerRequest * fetchThreads
        )
    }
    /// The queue's default length, per request the load keeps in flight.
    package static let defaultQueuePerRequest = 4
    /// No residency snapshots (`--residency off`): to measure what they cost under load.
    package var residencyOff = false
    /// The child's whole life, start-up, warm-up and load included, before it is killed as a timeout.
    package var timeoutSeconds: Double = 300
    package var settleNanos: UInt64 = SettleRule.defaultMaximumNanos
    package var settleQuietNanos: UInt64? = SettleRule.defaultQuietNanos

    package init(
        strategy: String,
        render: RenderMode,
        originURL: URL,
        fetchThreads: Int,
        renderThreads: Int?,
        workDirectory: URL
    ) {
        self.strategy = strategy
        self.render = render
        self.originURL = originURL
        self.fetchThreads = fetchThreads
        self.renderThreads = renderThreads
        self.workDirectory = workDirectory
    }
}

extension ServerSpec: MeasuredChildSpec {
    /// `bench _server --spec-file <work>/child-spec.json`.
    package static let subcommand = "_server"
    package var childTimeoutSeconds: Double { timeoutSeconds }
    package var endsOnInterrupt: Bool { listening }
}

/// The server's control route, outside the measured routes: `GET /_bench/window` opens the
/// measurement window (after the parent's warm-up); the window closes on SIGINT, and the child
/// reports on fd 3.
package enum ServerControl {
    package static let windowPath = "/_bench/window"
    /// The file in the work folder where the child writes the port it listens on, once it does.
    package static let portFileName = "server-port"
    /// How long `GET /calibration/BYTES` holds its block: long enough that C of them overlap.
    package static let calibrationHoldMillis: UInt32 = 50
    /// Seconds a 503 (the admission queue full) asks its client to wait, in Retry-After.
    package static let retryAfterSeconds = 1

    /// The path of the calibration route for a block of `bytes`.
    package static func calibrationPath(bytes: Int) -> String { "/calibration/\(bytes)" }

    /// The port the child wrote, or nil while it has not.
    package static func port(in workDirectory: URL) -> Int? {
        let path = workDirectory.appendingPathComponent(portFileName).path
        return (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0) }
    }

    /// Writes the port whole (a temporary file renamed), so a reader never sees half of it.
    package static func writePort(_ port: Int, in workDirectory: URL) throws {
        let target = workDirectory.appendingPathComponent(portFileName)
        let temporary = workDirectory.appendingPathComponent(portFileName + ".tmp")
        try Data(String(port).utf8).write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }
}

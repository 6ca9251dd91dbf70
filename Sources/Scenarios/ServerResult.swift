import BenchCore
import Foundation
import ImageServer

/// One cell and run of the image server: the settings, what the child measured over its window
/// (`ServerReport`), and what the parent's load saw (`RequestRecord`s).
package struct ServerResult: Codable, Sendable {
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator
    /// GET (the server fetches the image) or POST (the image is the request's body, held as its case says).
    package var route = ImageRoute.get
    package var concurrency: Int
    /// nil: a thread per request.
    package var renderThreads: Int?
    package var run: Int
    package var fixture: String
    package var status = TrialStatus.ok
    package var error = ""
    package var report = ServerReport()
    package var requests: [RequestRecord] = []
    package var loadSeconds = 0.0
    /// Who held the exact heap at its peak, largest first (blocks of the threshold and over, named
    /// in the parent); nil when the heap was not counted.
    package var holders: [PeakHolder]?
    /// The origin's images by served name: request i asked for image i mod n.
    package var imageNames: [String] = []
    /// The load came from outside (`--listen`): the parent saw no request, and the counts, throughput
    /// and window are the server's own.
    package var loadFromOutside = false
    /// The floor at the heap peak: each stage's requests times what the strategy's and renderer's
    /// rules say a request in that stage must hold (`ServerFloor`); nil when a rule is undeclared.
    package var floorBytes: Int?
    /// What the server admitted at once: `--memory-budget`, `--workers`, `--queue` (none: unbounded).
    package var admission = AdmissionSettings()

    package init(
        strategy: String,
        render: RenderMode,
        allocator: Allocator,
        concurrency: Int,
        renderThreads: Int?,
        run: Int,
        fixture: String
    ) {
        self.strategy = strategy
        self.render = render
        self.allocator = allocator
        self.concurrency = concurrency
        self.renderThreads = renderThreads
        self.run = run
        self.fixture = fixture
    }

    /// Requests sent in the window (by the parent's load, or counted by the server when the load came from outside).
    package var requestsSent: Int { loadFromOutside ? report.requestsAnswered : requests.count }
    package var requestsOK: Int {
        loadFromOutside
            ? report.requestsAnswered - report.requestsFailed
            : requests.filter { (200..<300).contains($0.status) }.count
    }
    package var throughput: Double? {
        let seconds = loadFromOutside ? report.busySeconds ?? 0 : loadSeconds
        return seconds > 0 ? Double(requestsOK) / seconds : nil
    }

    /// The latency below which `fraction` of the answered requests fall (nearest rank).
    package func latency(quantile fraction: Double) -> Double? {
        let sorted = requests.filter { (200..<300).contains($0.status) }.map(\.latencySeconds).sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The queue's length in the run: as given, or the default for its C.
    package var queueLimit: Int { admission.queueLimit ?? ServerSpec.defaultQueuePerRequest * concurrency }

    /// The time below which `fraction` of the admitted requests waited for admission (nearest rank);
    /// nil without a gate.
    package func queueTime(quantile fraction: Double) -> Double? {
        guard let waits = report.admission?.queueNanos, !waits.isEmpty else { return nil }
        let sorted = waits.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1e9
    }

    package var peakRSSDeltaBytes: Int? {
        guard let peak = report.peakRSSBytes, let baseline = report.baselineRSSBytes else { return nil }
        return peak - baseline
    }

    package var peakHeapDeltaBytes: Int? {
        guard let peak = report.peakHeapBytes, let baseline = report.baselineHeapBytes else { return nil }
        return peak - baseline
    }
}

/// A run's admission settings as given (`--memory-budget`, `--workers`, `--queue`); nil: not set.
package struct AdmissionSettings: Codable, Sendable, Equatable {
    package var budgetBytes: Int?
    package var workers: Int?
    /// nil: the default, `ServerSpec.defaultQueuePerRequest` x C, when there is a gate.
    package var queueLimit: Int?

    package init(budgetBytes: Int? = nil, workers: Int? = nil, queueLimit: Int? = nil) {
        self.budgetBytes = budgetBytes
        self.workers = workers
        self.queueLimit = queueLimit
    }

    /// Whether the server had a gate at all.
    package var gated: Bool { budgetBytes != nil || workers != nil }
}

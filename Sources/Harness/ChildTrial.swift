import BenchCore
import Foundation
import Imaging
import Probe
import Strategies

/// The measured side: runs one trial inside a fresh child process and returns what it measured.
///
/// Order matters: warm up first (session, connection, decoder), then open the measured window
/// (sampler, VmHWM reset, baseline), so that it holds only the fetch and the decode; it closes
/// once RSS and the heap have settled (`SettleRule`). The payload and the decoded image stay
/// alive until every reading is taken.
package enum ChildTrial {
    package static func run(_ spec: TrialSpec) -> TrialResult {
        let started = MonotonicClock.now()
        var result = TrialResult(spec: spec, pid: getpid())
        if let launched = spec.launchedAtNanos, launched <= started {
            result.startupSeconds = Double(started - launched) / 1e9
        }
        do {
            try measure(spec, startedAt: started, into: &result)
        } catch {
            (result.status, result.error) = classify(error)
        }
        return result
    }

    private static func measure(_ spec: TrialSpec, startedAt started: UInt64, into result: inout TrialResult) throws {
        let heap = try HeapCounters(expecting: spec.allocator)
        let exactHeap = ExactHeapPeak()
        let injection = try InjectedRegression.fromEnvironment()
        guard let strategyType = StrategyCatalog.strategy(named: spec.strategy) else {
            throw TrialError.unknownStrategy(spec.strategy, valid: StrategyCatalog.names)
        }
        guard let rendererType = RendererCatalog.renderer(named: spec.render.rawValue) else {
            throw TrialError.unknownRenderer(spec.render.rawValue, valid: RendererCatalog.names)
        }
        let strategy = strategyType.init(workDirectory: spec.workDirectory)
        let renderer = rendererType.init(
            limits: RenderLimits(maxPixel: spec.maxPixel, maxImagePixels: spec.maxImagePixels)
        )

        // Recording starts before the warm-up, so that a block from it still live at the peak is named too.
        if exactHeap != nil { PeakBlocks.start(thresholdBytes: spec.holderThresholdBytes) }
        result.warmedUp = false
        if let warmupURL = spec.warmupURL {
            do {
                try strategy.warmUp(url: warmupURL)
                result.warmedUp = true
            } catch FetchError.httpStatus {
                // The exchange completed (session, connection and transport are set up): that is
                // all a warm-up is for, and an origin's root may well answer 404.
                result.warmedUp = true
            } catch {
                // Not a measurement: the measured fetch reports its own failure if the server is
                // really unreachable. `warmed_up` says 0: this child measured a first request.
                // (Data(contentsOf:) reports a 404 as a plain error, so it lands here too.)
            }
        }
        try renderer.warmUp(image: spec.warmUpImage)

        let residency = spec.residencyOff == true ? nil : try ResidencyProbe(heap: heap, exactHeap: exactHeap)
        let window = try MeasurementWindow(
            heap: heap,
            exactHeap: exactHeap,
            intervalNanos: spec.sampleIntervalNanos,
            maximumDurationSeconds: spec.timeoutSeconds + 5,
            residency: residency
        )
        let recordingBefore = PeakBlocks.cost()
        let baseline = window.baseline
        result.warmupSeconds = Double(baseline.time - started) / 1e9

        let outcome: FetchOutcome
        let image: RenderedImage?
        let fetched: UInt64
        var injectedCopy: Any?  // test-only (BENCH_INJECT_REGRESSION); nil in real runs
        do {
            outcome = try strategy.fetch(url: spec.url)
            fetched = MonotonicClock.now()
            injectedCopy = injection?.apply(to: outcome.payload)
            image = try renderer.render(outcome.payload)
        } catch {
            window.abandon()
            throw error
        }
        let rendered = MonotonicClock.now()
        let readings = window.close(workEnded: rendered, settle: spec.settleRule)
        let recordingAfter = PeakBlocks.cost()
        let holders =
            exactHeap != nil && spec.holderThresholdBytes > 0 ? PeakBlocks.atPeak(windowStart: baseline.time) : nil

        // Everything below only reads numbers; the payload and image are still alive here.
        let final = readings.final
        let statistics = readings.statistics
        result.payloadBytes = outcome.payload.byteCount
        result.baselineRSSBytes = baseline.residentBytes
        result.sampledPeakRSSBytes = readings.sampledPeakResidentBytes
        result.hwmPeakRSSBytes = readings.hwmPeakResidentBytes
        result.peakRSSBytes = readings.peakResidentBytes
        result.finalRSSBytes = final.residentBytes
        result.baselineAllocatedBytes = baseline.allocatedBytes
        result.peakAllocatedBytes = readings.sampledPeakHeapBytes
        result.finalAllocatedBytes = final.allocatedBytes
        result.baselineHeapExactBytes = readings.exactBaseline
        result.peakHeapExactBytes = readings.exactPeak
        result.lifetimePeakHeapExactBytes = exactHeap?.lifetimePeak()
        if let holders {
            result.peakBlocks = holders.blocks
            result.holdersDropped = holders.dropped
            result.holderThresholdBytes = spec.holderThresholdBytes
            result.holderEvents = recordingAfter.events - recordingBefore.events
            result.holderRecordingSeconds = Double(recordingAfter.nanos - recordingBefore.nanos) / 1e9
        }
        result.fetchSeconds = Double(fetched - baseline.time) / 1e9
        result.renderSeconds = Double(rendered - fetched) / 1e9
        result.durationSeconds = Double(rendered - baseline.time) / 1e9
        result.settleSeconds = Double(readings.settleNanos) / 1e9
        result.settleLastMovementSeconds = Double(readings.lastMovementNanos) / 1e9
        result.imageWidth = image?.width
        result.imageHeight = image?.height
        result.floorParts = TrialFloor.of(
            strategy: strategyType,
            renderer: rendererType,
            payload: outcome.payload,
            maxPixel: spec.maxPixel
        )
        result.floorBytes = result.floorParts?.totalBytes
        result.samples = statistics.count
        result.samplerHertz = statistics.achievedHertz
        result.maxSampleGapMillis = Double(statistics.maxGapNanos) / 1e6
        result.samplerRealtime = window.isRealtime
        result.samplerCPUSeconds = Double(readings.recording.cpuNanos) / 1e9
        result.timeline = readings.timeline
        if let snapshots = readings.residency {
            result.residency = snapshots.rows
            result.residencySnapshots = snapshots.snapshots
            result.residencySeconds = Double(snapshots.nanos) / 1e9
            result.residencyInWindowSeconds = Double(snapshots.releaseNanos) / 1e9
        }
        withExtendedLifetime((outcome, image, injectedCopy)) {}
        if case .file(let file) = outcome.payload {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Maps an error to the row's status and a message a person can act on.
    static func classify(_ error: Error) -> (TrialStatus, String) {
        switch error {
        case let trial as TrialError:
            return (.harnessError, trial.description)
        case let fetch as FetchError:
            switch fetch {
            case .httpStatus: return (.httpError, fetch.description)
            case .undecodable: return (.decodeError, fetch.description)
            case .transport, .lengthMismatch, .storage: return (.transportError, fetch.description)
            }
        case let imaging as ImagingError:
            return (.decodeError, imaging.description)
        case let probe as ProbeError:
            return (.harnessError, probe.description)
        default:
            return (.harnessError, String(describing: error))
        }
    }
}

/// A trial the child cannot run as specified.
package enum TrialError: Error, CustomStringConvertible, Equatable {
    case unknownStrategy(String, valid: [String])
    case unknownRenderer(String, valid: [String])
    /// `BENCH_INJECT_REGRESSION` names no known regression.
    case unknownRegression(variable: String, value: String, valid: [String])

    package var description: String {
        switch self {
        case .unknownStrategy(let name, let valid):
            return "unknown strategy '\(name)'; valid: \(valid.joined(separator: ", "))"
        case .unknownRenderer(let name, let valid):
            return "unknown renderer '\(name)'; valid: \(valid.joined(separator: ", "))"
        case .unknownRegression(let variable, let value, let valid):
            return "\(variable)='\(value)' is not a known regression; valid: \(valid.joined(separator: ", "))"
        }
    }
}

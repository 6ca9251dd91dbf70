/// When a measured window closes after the work it measures: once RSS and the heap have stayed
/// flat for a quiet interval, and never later than a maximum.
///
/// Frameworks finish work after their completion handlers return (FoundationNetworking frees its
/// receive buffer on the session's queue a moment later), and "final" means the steady state with
/// the image on screen. The quiet interval starts at the render, so it is also the earliest end.
/// A quiet interval equal to the maximum is a fixed pause.
///
/// Flat also means "had the CPU to move": the quiet interval must span `quietTurns` turns of the
/// settling thread (each a wake-up from a short sleep), not only its length in time. On a busy
/// machine a thread that is due to free memory can wait for a core for tens of milliseconds; the
/// settling thread waits for cores as well, so its turns stretch the quiet interval by that delay
/// (up to the maximum), where a clock alone would call the memory flat too early.
package struct SettleRule: Codable, Sendable, Equatable {
    /// How long RSS and the heap must stay within their tolerances of one reading.
    package var quietNanos: UInt64
    /// The window closes at the latest this long after the render, flat or not.
    package var maximumNanos: UInt64
    /// Turns of the settling thread the quiet interval must also span (0: time alone).
    package var quietTurns: Int
    /// A change of RSS this large or smaller is not movement (16 pages).
    package var residentToleranceBytes: Int
    /// A change of the live heap this large or smaller is not movement (the holders' threshold).
    package var heapToleranceBytes: Int

    package init(
        quietNanos: UInt64,
        maximumNanos: UInt64,
        quietTurns: Int = SettleRule.defaultQuietTurns,
        residentToleranceBytes: Int = SettleRule.defaultResidentToleranceBytes,
        heapToleranceBytes: Int = SettleRule.defaultHeapToleranceBytes
    ) {
        self.quietNanos = min(quietNanos, maximumNanos)
        self.maximumNanos = maximumNanos
        self.quietTurns = quietTurns
        self.residentToleranceBytes = residentToleranceBytes
        self.heapToleranceBytes = heapToleranceBytes
    }

    package static let defaultQuietNanos: UInt64 = 10_000_000
    package static let defaultMaximumNanos: UInt64 = 50_000_000
    /// One turn every half millisecond on an idle machine: 20 in the 10 ms quiet interval.
    package static let defaultQuietTurns = 20
    package static let defaultResidentToleranceBytes = 64 * 1024
    package static let defaultHeapToleranceBytes = 64 * 1024

    /// Flat for 10 ms and 20 turns, at most 50 ms: what trials and scenarios use.
    package static let standard = SettleRule(quietNanos: defaultQuietNanos, maximumNanos: defaultMaximumNanos)

    /// A fixed pause of `nanos`: the window closes `nanos` after the render whatever it sees.
    package static func fixed(nanos: UInt64) -> SettleRule {
        SettleRule(quietNanos: nanos, maximumNanos: nanos, quietTurns: 0)
    }

    package var isFixed: Bool { quietNanos >= maximumNanos }
}

/// Follows the readings taken after the render and says when its rule is met. Pure and
/// allocation-free: the live window feeds it the sampler's readings, the report replays it on
/// recorded timelines.
package struct SettleDetector: Sendable {
    package let rule: SettleRule
    /// When the settle started (the render's end), in nanoseconds on the readings' clock.
    package let start: UInt64
    private var referenceTime: UInt64
    private var referenceResident: Int?
    private var referenceHeap = 0
    private var turnsSinceReference = 0
    /// Time of the last reading that moved past a tolerance (the start when none did).
    package private(set) var lastMovement: UInt64

    package init(rule: SettleRule, start: UInt64) {
        self.rule = rule
        self.start = start
        self.referenceTime = start
        self.lastMovement = start
    }

    /// Feeds one reading (readings before `start` are ignored); true once the rule is met:
    /// flat for the quiet interval, or the maximum reached.
    package mutating func observe(time: UInt64, residentBytes: Int, heapBytes: Int) -> Bool {
        guard time >= start else { return false }
        if let resident = referenceResident {
            if abs(residentBytes - resident) > rule.residentToleranceBytes
                || abs(heapBytes - referenceHeap) > rule.heapToleranceBytes
            {
                referenceTime = time
                referenceResident = residentBytes
                referenceHeap = heapBytes
                lastMovement = time
                turnsSinceReference = 0
            }
        } else {
            // The first reading after the render is the first reference; the quiet interval still
            // counts from the render itself.
            referenceResident = residentBytes
            referenceHeap = heapBytes
        }
        return isSettled(at: time)
    }

    /// Counts one turn of the settling thread (it woke up and looked at the readings).
    package mutating func turn() {
        turnsSinceReference += 1
    }

    /// Whether the rule is met at `time`: the readings have been flat for the quiet interval and
    /// its turns (and at least one was seen), or the maximum has passed.
    package func isSettled(at time: UInt64) -> Bool {
        if time >= start &+ rule.maximumNanos { return true }
        return referenceResident != nil && time >= referenceTime &+ rule.quietNanos
            && turnsSinceReference >= rule.quietTurns
    }
}

/// A measured child's spec that settles after its work: at most `settleNanos`, over once RSS and
/// the heap have been flat for `settleQuietNanos` (nil: a fixed pause of `settleNanos`).
package protocol SettlingSpec {
    var settleNanos: UInt64 { get }
    var settleQuietNanos: UInt64? { get }
}

extension SettlingSpec {
    /// The rule the child's window closes by.
    package var settleRule: SettleRule {
        settleQuietNanos.map { SettleRule(quietNanos: $0, maximumNanos: settleNanos) } ?? .fixed(nanos: settleNanos)
    }
}

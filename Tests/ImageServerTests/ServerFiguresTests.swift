import BenchCore
import ImageServer
import Scenarios
import Testing

/// The image server's figures that need no process: the slope's interval, the floor by stage,
/// the requests that fit a container, the stage gauges.
struct ServerFiguresTests {
    /// The slope's 95% interval is Student's t times its standard error, on both sides.
    @Test func slopeIntervalIsStudentsTOnBothSides() throws {
        // y = 1.9x fits (1,2) (2,4) (3,5) (4,8) with residuals 0.1, 0.2, -0.7, 0.4: SSR 0.70, variance
        // 0.35, Sxx 5, standard error sqrt(0.07), t(2) = 4.303.
        let points: [(x: Double, y: Double)] = [(1, 2), (2, 4), (3, 5), (4, 8)]
        let fit = try #require(LinearFit.intervals(points))
        let halfWidth = 4.303 * 0.07.squareRoot()
        #expect(abs(fit.fit.slope - 1.9) < 1e-9)
        #expect(abs(fit.fit.intercept - 0) < 1e-9)
        #expect(abs(fit.slope.lowerBound - (1.9 - halfWidth)) < 1e-9)
        #expect(abs(fit.slope.upperBound - (1.9 + halfWidth)) < 1e-9)
        // Two points have no interval (no degree of freedom left).
        #expect(LinearFit.intervals([(1, 2), (2, 4)]) == nil)
    }

    @Test func studentTFallsWithDegreesOfFreedomAndStaysAboveTheNormal() {
        let values = [1, 2, 5, 10, 30, 31, 45, 100, 1000].map { LinearFit.studentT975(degreesOfFreedom: $0) }
        #expect(values.first == 12.706)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(values.allSatisfy { $0 > 1.959 && $0 <= 12.706 })
    }

    /// Each stage's requests hold what the rules say a request in that stage holds.
    @Test func floorCountsEachStageByItsRule() throws {
        let stages = StageCounts(inFlight: 5, fetching: 1, waitingToRender: 2, rendering: 1, writing: 1)
        let body = 1_000_000
        // A data task's body in memory, decoded in full (100 x 50 RGBA: 20,000 bytes), a 3,000-byte answer.
        let inMemory = try #require(
            ServerFloor.bytes(
                stages: stages,
                fetch: .bodyInMemory,
                render: .fullBitmap,
                payloadBytes: body,
                imageWidth: 100,
                imageHeight: 50,
                maxPixel: 1024,
                answerBytes: 3_000
            )
        )
        #expect(inMemory == 1 * body + 2 * body + 1 * (body + 20_000) + 1 * 3_000)
        // A download streams through a buffer, waits as a file, and renders a scaled bitmap beside no body.
        let streamed = try #require(
            ServerFloor.bytes(
                stages: stages,
                fetch: .streamingBuffer(bytes: 65_536),
                render: .scaledBitmap,
                payloadBytes: body,
                imageWidth: 2000,
                imageHeight: 1000,
                maxPixel: 100,
                answerBytes: 3_000
            )
        )
        #expect(streamed == 1 * 65_536 + 0 + 1 * max(100 * 50 * 4, 65_536) + 3_000)
        #expect(
            ServerFloor.bytes(
                stages: stages,
                fetch: .undeclared,
                render: .fullBitmap,
                payloadBytes: body,
                imageWidth: 100,
                imageHeight: 50,
                maxPixel: 1024,
                answerBytes: 0
            ) == nil
        )
    }

    static func run(
        concurrency: Int,
        run: Int,
        renderThreads: Int?,
        inFlight: Int,
        heapDelta: Int,
        peakRSS: Int
    ) -> ServerResult {
        var result = ServerResult(
            strategy: "data",
            render: .full,
            allocator: .system,
            concurrency: concurrency,
            renderThreads: renderThreads,
            run: run,
            fixture: "100x100"
        )
        // A baseline that grows with C, as a warm-up at C leaves it: the fit must not lean on it.
        result.report.baselineRSSBytes = 40_000_000 + concurrency * 1_000_000
        result.report.peakRSSBytes = peakRSS
        result.report.maxInFlight = inFlight
        result.report.baselineHeapBytes = 1_000_000
        result.report.peakHeapBytes = 1_000_000 + heapDelta
        result.report.heapIsExact = true
        result.report.stagesAtHeapPeak.inFlight = inFlight
        return result
    }

    /// What fits a container: its bytes less peak RSS's line at no request, a slope a request.
    @Test func requestsFittingAContainer() throws {
        let results = [1, 4, 16].enumerated().map { index, inFlight in
            Self.run(
                concurrency: inFlight,
                run: index + 1,
                renderThreads: nil,
                inFlight: inFlight,
                heapDelta: 5_000_000 + inFlight * 90_000_000,
                peakRSS: 50_000_000 + inFlight * 100_000_000
            )
        }
        let slope = try #require(ServerSlope.of(results).first)
        #expect(abs(try #require(slope.heap).fit.slope - 90_000_000) < 1)
        #expect(abs(try #require(slope.rss).fit.intercept - 50_000_000) < 1)
        // (2 GiB - 50 MB) / 100 MB = 20.97: 20 requests.
        #expect(slope.requestsFitting(2 << 30) == 20)
        #expect(slope.requestsFitting(512 << 20) == 4)
        #expect(slope.requestsFitting(10_000_000) == 0)
    }

    /// A line needs runs at two concurrencies at least: runs at one C, whose requests in flight at the
    /// peak differ by one, give no slope; the same runs beside one at another C give one.
    @Test func oneConcurrencyGivesNoSlope() throws {
        var results = [14, 15, 16].enumerated().map { index, inFlight in
            Self.run(
                concurrency: 16,
                run: index + 1,
                renderThreads: nil,
                inFlight: inFlight,
                heapDelta: inFlight * 3_000_000,
                peakRSS: inFlight * 4_000_000
            )
        }
        let single = try #require(ServerSlope.of(results).first)
        #expect(single.heap == nil && single.rss == nil && single.floor == nil)
        results.append(
            Self.run(
                concurrency: 4,
                run: 1,
                renderThreads: nil,
                inFlight: 4,
                heapDelta: 12_000_000,
                peakRSS: 16_000_000
            )
        )
        let spanning = try #require(ServerSlope.of(results).first)
        #expect(abs(try #require(spanning.heap).fit.slope - 3_000_000) < 1)
    }

    /// With a pool of T render threads, the requests past T wait holding their body: the slope is theirs,
    /// fitted over the runs at C >= T, not a line through the renders at C < T too.
    @Test func aBoundedPoolIsFittedPastItsThreads() throws {
        let body = 13_000_000
        let render = 110_000_000
        func heap(_ inFlight: Int) -> Int { min(inFlight, 2) * render + max(0, inFlight - 2) * body }
        var results = [Self.run(concurrency: 1, run: 1, renderThreads: 2, inFlight: 1, heapDelta: heap(1), peakRSS: 0)]
        for (run, concurrency) in [4, 4, 16, 16].enumerated() {
            results.append(
                Self.run(
                    concurrency: concurrency,
                    run: run + 1,
                    renderThreads: 2,
                    inFlight: concurrency,
                    heapDelta: heap(concurrency),
                    peakRSS: 60_000_000 + heap(concurrency)
                )
            )
        }
        let slope = try #require(ServerSlope.of(results).first)
        #expect(slope.runs == 5)
        #expect(slope.fitted == 4)
        let fit = try #require(slope.heap)
        #expect(abs(fit.fit.slope - Double(body)) < 1, "\(fit.fit.slope)")
        #expect(abs(fit.fit.intercept - Double(2 * render - 2 * body)) < 1, "\(fit.fit.intercept)")
    }

    @Test func gaugesCountStagesAndKeepTheMostInFlight() {
        let gauges = StageGauges()
        for _ in 0..<3 { gauges.enter(.inFlight) }
        gauges.enter(.fetching)
        gauges.leave(.inFlight)
        #expect(gauges.read() == StageCounts(inFlight: 2, fetching: 1))
        #expect(gauges.maxInFlight == 3)
        gauges.restartMost()
        #expect(gauges.maxInFlight == 2)
    }
}

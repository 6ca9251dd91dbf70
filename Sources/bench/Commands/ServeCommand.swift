import ArgumentParser
import Foundation
import Harness
import Imaging
import LoopbackServer

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the loopback server on its own, so the fixture can be fetched by curl or another client.",
        discussion: """
        Serves /fixture.jpg, /warmup (1 KiB) and /status/<code>; any resource takes faults by query,
        e.g. ?fault=truncate&afterBytes=1000000. Stops on Ctrl-C or after --seconds.
        """)

    @OptionGroup var fixture: FixtureOptions

    @Option(help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @Option(help: "Throttle, bytes per second with k/M/G suffix (e.g. 20M).")
    var bandwidth: ByteRate?

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var seconds: Double?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() throws {
        let file = try FixtureGenerator.cachedFixture(fixture.spec, in: fixture.cacheDirectory)
        var configuration = LoopbackServer.Configuration()
        configuration.port = port
        configuration.bandwidthBytesPerSecond = bandwidth?.bytesPerSecond
        let server = LoopbackServer(configuration: configuration)
        server.addResource(path: BenchmarkRunner.fixturePath, body: try Data(contentsOf: file), contentType: "image/jpeg")
        try server.start()
        print("serving \(server.url(for: BenchmarkRunner.fixturePath)) (\(file.lastPathComponent)); Ctrl-C stops")
        fflush(stdout)
        Interruption.install()
        let deadline = seconds.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while !Interruption.requested && Date() < deadline {
            usleep(100_000)
        }
        server.shutdown()
        print("served \(server.totalRequestCount) requests, \(server.bytesSent) body bytes")
    }
}

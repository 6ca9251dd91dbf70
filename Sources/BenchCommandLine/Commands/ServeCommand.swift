import ArgumentParser
import BenchCore
import Foundation
import Harness
import Imaging
import LoopbackServer
import Measuring

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the loopback server on its own, so the fixture can be fetched by curl or another client.",
        discussion: """
            Serves the fixture at /fixture.<extension of --encoding> (/fixture.jpg for every JPEG encoding, \
            /fixture.png, /fixture.webp, /fixture.heic, /fixture.avif), /warmup (1 KiB) and /status/<code>; \
            the first line printed is the fixture's URL. Any resource takes faults by query, \
            e.g. ?fault=truncate&afterBytes=1000000, ?fault=status&code=503 (200...599; other codes get 400), \
            ?fault=redirect (a loop) or ?fault=redirect&hops=3. Connections that send no complete request \
            within --request-timeout (or --idle-timeout between requests) are closed; past --max-connections \
            a new one gets 503. Stops on Ctrl-C or after --seconds.

            Exit status: 0 stopped after --seconds; 64 bad options; 70 the fixture cannot be made or the \
            port cannot be listened on; 75 the port is in use (another server holds it); 130/143/129 stopped \
            by SIGINT/SIGTERM/SIGHUP.
            """
    )

    @OptionGroup var fixture: FixtureOptions

    @Option(help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @OptionGroup var throttle: BandwidthOption
    var bandwidth: ByteRate? { throttle.bandwidth }

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var seconds: Double?

    @Option(help: "Connections open at once; more are answered 503 and closed.")
    var maxConnections = LoopbackServer.Configuration.defaultMaxConnections

    @Option(help: "Seconds a connection has to send a complete request before it is closed (slow or idle clients).")
    var requestTimeout = LoopbackServer.Configuration.defaultRequestTimeoutSeconds

    @Option(help: "Seconds a kept-alive connection may wait for its next request.")
    var idleTimeout = LoopbackServer.Configuration.defaultIdleTimeoutSeconds

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535 (got \(port))")
        }
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= 31_536_000) {
            throw ValidationError(
                "--seconds must be a number of seconds in (0, 31536000] (got \(seconds)); leave it out to run until Ctrl-C"
            )
        }
        guard (1...10_000).contains(maxConnections) else {
            throw ValidationError("--max-connections must be between 1 and 10000 (got \(maxConnections))")
        }
        for (option, value) in [("--request-timeout", requestTimeout), ("--idle-timeout", idleTimeout)]
        where !(value.isFinite && value > 0 && value <= 86_400) {
            throw ValidationError("\(option) must be a number of seconds in (0, 86400] (got \(value))")
        }
    }

    func run() throws {
        let file = try FixtureGenerator.cachedFixture(fixture.spec, in: fixture.cacheDirectory)
        var configuration = LoopbackServer.Configuration()
        configuration.port = port
        configuration.bandwidthBytesPerSecond = bandwidth?.bytesPerSecond
        configuration.maxConnections = maxConnections
        configuration.requestTimeoutSeconds = requestTimeout
        configuration.idleTimeoutSeconds = idleTimeout
        let server = LoopbackServer(configuration: configuration)
        // The name's extension follows the encoding (a PNG at /fixture.jpg misleads clients and people
        // that go by the name); JPEG keeps /fixture.jpg, which the docs and scripts use.
        let path = "/fixture.\(fixture.spec.encoding.fileExtension)"
        server.addResource(path: path, body: try Data(contentsOf: file), contentType: fixture.spec.encoding.mimeType)
        do {
            try server.start()
        } catch let failure as LoopbackServer.ServerError {
            if case .cannotListen(_, _, let errno) = failure, errno == EADDRINUSE {
                throw BenchFailure(.outputBusy, "\(failure); pick another --port, or --port 0 for a free one")
                    .reported()
            }
            throw BenchFailure(.internalError, "\(failure)").reported()
        }
        print("serving \(server.url(for: path)) (\(file.lastPathComponent)); Ctrl-C stops")
        fflush(nil)  // every C stream: the global `stdout` is shared mutable state to Swift 6
        Interruption.install(wording: .server)
        let deadline = seconds.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while !Interruption.requested && Date() < deadline {
            usleep(100_000)
        }
        server.shutdown()
        print("served \(server.totalRequestCount) requests, \(server.bytesSent) body bytes")
        if let signal = Interruption.signalName {
            printError("bench: server stopped by \(signal)")
            throw ExitCode(Interruption.exitStatus)
        }
    }
}

import Foundation
import Imaging
import LoopbackServer
import Strategies

/// The article's 6000x4000 fixture, from the same cache the harness uses (made once per machine),
/// served by one loopback server for the whole test process.
enum Fixture {
    static let file: URL = try! FixtureGenerator.cachedFixture(.article, in: FixtureGenerator.defaultCacheDirectory)
    static let size: Int = (try! FileManager.default.attributesOfItem(atPath: file.path)[.size] as! NSNumber).intValue
    static let sha256: String = try! SHA256Sum.ofFile(file)

    static let path = "/fixture.jpg"
    static let server: LoopbackServer = {
        let server = LoopbackServer()
        server.addResource(path: path, body: try! Data(contentsOf: file), contentType: "image/jpeg")
        server.addResource(
            path: "/text.jpg",
            body: Data(String(repeating: "not a jpeg ", count: 1000).utf8),
            contentType: "image/jpeg"
        )
        try! server.start()
        return server
    }()

    static func url(_ path: String = path, fault: ServerFault? = nil) -> URL {
        fault.map { server.url(for: path, fault: $0) } ?? server.url(for: path)
    }
}

/// SHA-256 by coreutils' `sha256sum`, a real and independent implementation.
enum SHA256Sum {
    static func ofFile(_ url: URL) throws -> String {
        try run(arguments: [url.path], input: nil)
    }

    static func of(_ data: Data) throws -> String {
        try run(arguments: ["-"], input: data)
    }

    static func of(_ payload: Payload) throws -> String {
        switch payload {
        case .memory(let data): return try of(data)
        case .file(let url): return try ofFile(url)
        }
    }

    private static func run(arguments: [String], input: Data?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Feed stdin on another thread: a 13 MB body is larger than the pipe's buffer.
        let feeding = Thread {
            if let input { try? stdin.fileHandleForWriting.write(contentsOf: input) }
            try? stdin.fileHandleForWriting.close()
        }
        feeding.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let digest = String(decoding: output, as: UTF8.self).split(separator: " ").first
        else {
            throw CocoaError(.fileReadUnknown)
        }
        return String(digest)
    }
}

/// A fresh work folder for one strategy, removed by `body`'s end.
func withWorkDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("StrategiesTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Fetches `url` with a fresh instance of the named strategy, in a fresh work folder.
func fetch(_ strategy: String, _ url: URL, _ inspect: (FetchOutcome, URL) throws -> Void = { _, _ in }) throws {
    let type = StrategyCatalog.strategy(named: strategy)!
    try withWorkDirectory { directory in
        let outcome = try type.init(workDirectory: directory).fetch(url: url)
        try inspect(outcome, directory)
    }
}

/// The error `body` throws, as a FetchError (nil if it threw nothing or something else).
func fetchError(_ body: () throws -> Void) -> FetchError? {
    do {
        try body()
        return nil
    } catch {
        return error as? FetchError
    }
}

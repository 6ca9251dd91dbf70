import BenchCore
import Foundation
import Synchronization

/// Names the blocks a child recorded at its exact heap peak and groups them into holders, in the
/// parent, after the child has exited: the measured process never symbolizes.
///
/// Frames come as (file, offset). `llvm-symbolizer` (the Swift toolchain's, or one on PATH) reads
/// each file's symbol table, including the functions `dladdr` cannot see (everything not exported:
/// most of an executable's Swift code, FoundationNetworking's internals); `swift-demangle
/// --simplified` turns Swift names into `ImageDecoder.decodeFull(_:info:maxImagePixels:)`. Without
/// llvm-symbolizer a frame is the child's `dladdr` symbol, or `file+0xoffset`; without
/// swift-demangle, the Swift runtime's own demangler. Names are cached by (file, offset), which do
/// not change between children of one executable, so a matrix symbolizes each frame once.
package final class PeakHolderNaming: Sendable {
    package static let shared = PeakHolderNaming()

    struct FrameKey: Hashable, Sendable {
        var module: String
        var offset: UInt64
    }

    struct FrameName: Sendable {
        /// For people: module names and implicit self dropped.
        var simplified: String
        /// Module-qualified, to tell the standard library's and Foundation's own code.
        var full: String
        /// The file's name ("bench", "libFoundationNetworking.so").
        var file: String
    }

    let symbolizer: String?
    let demangler: String?
    private let cache = Mutex<[FrameKey: FrameName]>([:])
    /// A program that failed (timed out, wrote too much, exited non-zero) is not asked again.
    private let failed = Mutex<Set<String>>([])
    /// How long one batch may take, and how much it may write, before the program is killed.
    static let timeoutSeconds = 30.0
    static let outputLimitBytes = 64 << 20

    package init(symbolizer: String? = PeakHolderNaming.locate("llvm-symbolizer"),
                demangler: String? = PeakHolderNaming.locate("swift-demangle")) {
        self.symbolizer = symbolizer
        self.demangler = demangler
    }

    /// A toolchain program: `BENCH_<NAME>` (e.g. BENCH_LLVM_SYMBOLIZER), then PATH, then beside the
    /// `swift` on PATH, then /opt/swift/usr/bin.
    package static func locate(_ program: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let variable = "BENCH_" + program.uppercased().replacingOccurrences(of: "-", with: "_")
        if let path = environment[variable] { return FileManager.default.isExecutableFile(atPath: path) ? path : nil }
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        var candidates = folders.map { "\($0)/\(program)" }
        for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            let swift = URL(fileURLWithPath: "\(folder)/swift").resolvingSymlinksInPath()
            candidates.append(swift.deletingLastPathComponent().appendingPathComponent(program).path)
        }
        candidates.append("/opt/swift/usr/bin/\(program)")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The holders of one run's peak, largest first: blocks grouped by stack.
    package func holders(of blocks: [PeakBlock]) -> [PeakHolder] {
        let names = name(Set(blocks.flatMap { $0.frames }))
        var grouped: [String: PeakHolder] = [:]
        for block in blocks {
            let frames = block.frames.map { frame in
                names[FrameKey(module: frame.module, offset: frame.offset)]
                    ?? FrameName(simplified: frame.symbol ?? "?", full: frame.symbol ?? "?", file: Self.fileName(frame.module))
            }
            let shown = Array(Self.droppingWrappers(frames).drop { Self.isAllocator($0) })
            let holder = shown.first { !Self.isAllocatorRuntimeOrStorage($0) } ?? shown.first ?? frames.first
            let stack = shown.reversed().map(\.simplified)
            let key = stack.joined(separator: ";")
            grouped[key, default: PeakHolder(bytes: 0, blocks: 0, allocatedBy: holder?.simplified ?? "?",
                                             module: holder?.file ?? "?", stack: stack)].bytes += block.bytes
            grouped[key]!.blocks += 1
        }
        // Largest first; equal sizes by their stacks, so that the order is the same every time.
        return grouped.sorted { ($1.value.bytes, $0.key) < ($0.value.bytes, $1.key) }.map(\.value)
    }

    /// Names for every frame, from the cache or symbolized now (one batch per program).
    func name(_ frames: Set<StackFrame>) -> [FrameKey: FrameName] {
        let keys = Set(frames.map { FrameKey(module: $0.module, offset: $0.offset) })
        let known = cache.withLock { cache in cache.filter { keys.contains($0.key) } }
        let missing = keys.subtracting(known.keys).sorted { ($0.module, $0.offset) < ($1.module, $1.offset) }
        guard !missing.isEmpty else { return known }
        let symbols = Dictionary(frames.map { (FrameKey(module: $0.module, offset: $0.offset), $0.symbol) },
                                 uniquingKeysWith: { first, _ in first })
        let linkageNames = symbolize(missing).enumerated().map { index, name in
            name ?? symbols[missing[index]].flatMap { $0 } ?? "\(Self.fileName(missing[index].module))+0x\(String(missing[index].offset, radix: 16))"
        }
        let full = demangle(linkageNames, simplified: false)
        let simplified = demangle(linkageNames, simplified: true)
        var named = known
        cache.withLock { cache in
            for (index, key) in missing.enumerated() {
                let name = FrameName(simplified: simplified[index], full: full[index], file: Self.fileName(key.module))
                cache[key] = name
                named[key] = name
            }
        }
        return named
    }

    /// llvm-symbolizer's function name for each frame (nil where it has none), in order.
    func symbolize(_ keys: [FrameKey]) -> [String?] {
        guard let symbolizer else { return keys.map { _ in nil } }
        let input = keys.map { "\"\($0.module)\" 0x\(String($0.offset, radix: 16))" }.joined(separator: "\n") + "\n"
        guard let output = run(symbolizer, ["--functions=linkage", "--no-inlines", "--output-style=JSON"], input: input)
        else { return keys.map { _ in nil } }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
        return keys.indices.map { index in
            guard index < lines.count,
                  let object = try? JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any],
                  let symbols = object["Symbol"] as? [[String: Any]],
                  let name = symbols.first?["FunctionName"] as? String, !name.isEmpty, name != "??" else { return nil }
            return name
        }
    }

    /// Swift names demangled (C++ names llvm-symbolizer has demangled already), one per name.
    func demangle(_ names: [String], simplified: Bool) -> [String] {
        let swiftNames = names.filter(Self.isSwiftMangled)
        guard !swiftNames.isEmpty else { return names }
        var demangled: [String: String] = [:]
        if let demangler,
           let output = run(demangler, ["--compact"] + (simplified ? ["--simplified"] : []),
                                 input: swiftNames.joined(separator: "\n") + "\n") {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, name) in swiftNames.enumerated() where index < lines.count && !lines[index].isEmpty {
                demangled[name] = lines[index]
            }
        }
        return names.map { demangled[$0] ?? (Self.isSwiftMangled($0) ? Self.runtimeDemangle($0) : $0) }
    }

    static func isSwiftMangled(_ name: String) -> Bool { name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_T") }

    static func runtimeDemangle(_ name: String) -> String {
        name.utf8CString.withUnsafeBufferPointer { buffer in
            guard let result = _swift_demangle(buffer.baseAddress, UInt(buffer.count - 1), nil, nil, 0) else { return name }
            defer { free(result) }
            return String(cString: result)
        }
    }

    static func fileName(_ module: String) -> String { URL(fileURLWithPath: module).lastPathComponent }

    /// The frames from the allocation call on: the wrappers' own frames above it (innermost first)
    /// are dropped by the entry point's name, which even `dladdr` knows (the wrappers' static
    /// helpers it cannot name would otherwise stand for the holder).
    static func droppingWrappers(_ frames: [FrameName]) -> ArraySlice<FrameName> {
        guard let entry = frames.prefix(8).lastIndex(where: isAllocationEntryPoint) else { return frames[...] }
        return frames[(entry + 1)...]
    }

    static func isAllocationEntryPoint(_ frame: FrameName) -> Bool {
        allocationEntryPoints.contains(frame.simplified) || frame.simplified.hasPrefix("operator new")
            || frame.simplified.hasPrefix("_Znw") || frame.simplified.hasPrefix("_Zna")
    }

    static let allocationEntryPoints: Set<String> = [
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc", "reallocarray",
    ]

    /// The malloc wrappers and the allocators behind them: never shown in a stack.
    static func isAllocator(_ frame: FrameName) -> Bool {
        let allocatorFiles = ["libc.so", "libjemalloc.so", "libstdc++.so"]
        return allocatorWrappers.contains(frame.simplified) || frame.simplified.hasPrefix("operator new")
            || allocatorFiles.contains { frame.file.hasPrefix($0) }
    }

    /// The entry points, free, and the wrappers' helpers (named where llvm-symbolizer reads them).
    static let allocatorWrappers = allocationEntryPoints.union([
        "free", "record_allocation", "count_block", "account", "new_block", "new_aligned_block", "aligned_by_posix_memalign",
    ])

    /// Frames that allocate on someone else's behalf: the allocator, the Swift runtime and
    /// concurrency, the standard library and Foundation's storage (also where it is inlined or
    /// specialized into another file). `allocated_by` is the first frame that is none of these.
    static func isAllocatorRuntimeOrStorage(_ frame: FrameName) -> Bool {
        if isAllocator(frame) { return true }
        let runtimeFiles = ["ld-linux", "libgcc_s", "libswiftCore.so", "libswift_Concurrency.so", "libFoundation.so",
                            "libFoundationEssentials.so", "libdispatch.so", "libBlocksRuntime.so"]
        if runtimeFiles.contains(where: { frame.file.hasPrefix($0) }) || frame.simplified.hasPrefix("swift_") { return true }
        var subject = Substring(frame.full)
        let prefixes = ["specialized ", "generic specialization ", "function signature specialization ", "merged ",
                        "partial apply for ", "outlined ", "static ", "reabstraction thunk helper ", "thunk for "]
        var stripped = true
        while stripped {
            stripped = false
            for prefix in prefixes where subject.hasPrefix(prefix) {
                subject = subject.dropFirst(prefix.count)
                stripped = true
            }
            if subject.hasPrefix("<"), let end = subject.firstIndex(of: ">") {  // a specialization's parameters
                subject = subject[subject.index(after: end)...].drop { $0 == " " }
                if subject.hasPrefix("of ") { subject = subject.dropFirst(3) }
                stripped = true
            }
        }
        return ["Swift.", "Foundation.", "FoundationEssentials."].contains { subject.hasPrefix($0) }
    }

    /// Runs a toolchain program with `input` on its stdin and its stdout in a file (no pipe to
    /// deadlock on), for at most `timeoutSeconds` and `outputLimitBytes`, and not past a Ctrl-C:
    /// then it is killed, nil is returned (the names fall back), a warning says why once, and the
    /// program is not asked again. A stuck or flooding symbolizer must never cost a run its rows.
    func run(_ program: String, _ arguments: [String], input: String) -> String? {
        guard !failed.withLock({ $0.contains(program) }), !Interruption.requested else { return nil }
        let folder = FileManager.default.temporaryDirectory
        let stem = "bench-symbolize-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let inputFile = folder.appendingPathComponent(stem + ".in"), outputFile = folder.appendingPathComponent(stem + ".out")
        defer {
            try? FileManager.default.removeItem(at: inputFile)
            try? FileManager.default.removeItem(at: outputFile)
        }
        guard FileManager.default.createFile(atPath: inputFile.path, contents: Data(input.utf8)),
              FileManager.default.createFile(atPath: outputFile.path, contents: nil),
              let stdin = FileHandle(forReadingAtPath: inputFile.path),
              let stdout = FileHandle(forWritingAtPath: outputFile.path) else { return nil }
        defer { try? stdin.close(); try? stdout.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return give(up: program, because: "cannot start: \(error)") }
        let deadline = Date().addingTimeInterval(Self.timeoutSeconds)
        var problem: String?
        while process.isRunning {
            let written = (try? FileManager.default.attributesOfItem(atPath: outputFile.path)[.size] as? NSNumber)?.intValue ?? 0
            if written > Self.outputLimitBytes { problem = "wrote more than \(Self.outputLimitBytes >> 20) MiB" }
            else if Date() >= deadline { problem = "took more than \(Int(Self.timeoutSeconds)) s" }
            else if Interruption.requested { problem = "interrupted" }
            if problem != nil {
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        if let problem { return give(up: program, because: problem) }
        guard process.terminationStatus == 0 else { return give(up: program, because: "exited \(process.terminationStatus)") }
        guard let data = try? Data(contentsOf: outputFile), data.count <= Self.outputLimitBytes else {
            return give(up: program, because: "its output could not be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func give(up program: String, because reason: String) -> String? {
        let first = failed.withLock { $0.insert(program).inserted }
        if first && reason != "interrupted" {
            StandardError.write("warning: \(program) \(reason); holders are named without it (dladdr's names, or file+offset)\n")
        }
        return nil
    }
}

@_silgen_name("swift_demangle")
private func _swift_demangle(_ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: UInt,
                             _ outputBuffer: UnsafeMutablePointer<CChar>?, _ outputBufferSize: UnsafeMutablePointer<UInt>?,
                             _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

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
    /// How long one batch may take by default, and how much it may write, before the program is killed.
    static let defaultTimeoutSeconds = 30.0
    static let outputLimitBytes = 64 << 20
    /// Seconds one batch may take instead of `defaultTimeoutSeconds` (a number from 0.1 to 3600;
    /// any other value is ignored).
    package static let timeoutVariable = "BENCH_SYMBOLIZER_TIMEOUT"
    let timeoutSeconds: Double
    /// How a warning names a program: with the variable that named it, if one did.
    private let shownNames: [String: String]

    /// The toolchain's programs, found by `locate`; a program named by its variable that cannot be
    /// used is said once, here, on stderr.
    package convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let symbolizer = Self.locate("llvm-symbolizer", environment: environment)
        let demangler = Self.locate("swift-demangle", environment: environment)
        for problem in [symbolizer.problem, demangler.problem].compactMap({ $0 }) {
            StandardError.write("warning: \(problem)\n")
        }
        self.init(symbolizer: symbolizer.path, demangler: demangler.path, environment: environment)
    }

    package init(
        symbolizer: String?,
        demangler: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.symbolizer = symbolizer
        self.demangler = demangler
        var shownNames: [String: String] = [:]
        for (program, path) in [("llvm-symbolizer", symbolizer), ("swift-demangle", demangler)] {
            let variable = Self.variable(naming: program)
            if let path, environment[variable] == path { shownNames[path] = "\(variable)=\(EscapedText.escaped(path))" }
        }
        self.shownNames = shownNames
        timeoutSeconds =
            environment[Self.timeoutVariable].flatMap(Double.init)
            .flatMap { (0.1...3600).contains($0) ? $0 : nil } ?? Self.defaultTimeoutSeconds
    }

    static func variable(naming program: String) -> String {
        "BENCH_" + program.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A toolchain program: `BENCH_<NAME>` (e.g. BENCH_LLVM_SYMBOLIZER), then PATH, then beside the
    /// `swift` on PATH, then /opt/swift/usr/bin. A program the variable names that is missing, not
    /// executable or empty is not used, and `problem` says why (holders are then named without it).
    package static func locate(
        _ program: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> (path: String?, problem: String?)
    {
        let variable = Self.variable(naming: program)
        if let path = environment[variable] {
            let without = "holders are named without \(program)"
            guard !path.isEmpty else { return (nil, "\(variable) is set but empty; \(without)") }
            var info = stat()
            let named = "\(variable)=\(EscapedText.escaped(path))"
            guard stat(path, &info) == 0 else {
                return (nil, "\(named): \(String(cString: strerror(errno))); \(without)")
            }
            if (info.st_mode & S_IFMT) == S_IFDIR { return (nil, "\(named) is a folder, not a program; \(without)") }
            guard access(path, X_OK) == 0 else { return (nil, "\(named) is not executable; \(without)") }
            guard info.st_size > 0 else { return (nil, "\(named) is an empty file; \(without)") }
            return (path, nil)
        }
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        var candidates = folders.map { "\($0)/\(program)" }
        for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            let swift = URL(fileURLWithPath: "\(folder)/swift").resolvingSymlinksInPath()
            candidates.append(swift.deletingLastPathComponent().appendingPathComponent(program).path)
        }
        candidates.append("/opt/swift/usr/bin/\(program)")
        return (candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, nil)
    }

    /// The holders of one run's peak, largest first: blocks grouped by stack. The programs' input
    /// and output files go to `scratch` (the trial's work folder, inside the run's scratch folder,
    /// which the next run removes should this one be killed).
    /// Each holder's role comes from `roles` (``HolderRoles``).
    package func holders(
        of blocks: [PeakBlock],
        scratch: URL,
        roles: [HolderRoleRule] = HolderRoles.builtIn
    ) -> [PeakHolder] {
        let names = name(Set(blocks.flatMap { $0.frames }), scratch: scratch)
        var grouped: [String: PeakHolder] = [:]
        for block in blocks {
            let frames = block.frames.map { frame in
                names[FrameKey(module: frame.module, offset: frame.offset)]
                    ?? FrameName(
                        simplified: frame.symbol.map(EscapedText.escaped) ?? "?",
                        full: frame.symbol.map(EscapedText.escaped) ?? "?",
                        file: Self.fileName(frame.module)
                    )
            }
            let shown = Array(Self.droppingWrappers(frames).drop { Self.isAllocator($0) })
            let holder = shown.first { !Self.isAllocatorRuntimeOrStorage($0) } ?? shown.first ?? frames.first
            let stack = shown.reversed().map(\.simplified)
            let role = HolderRoles.role(
                frames: shown.map { ($0.simplified, $0.file) },
                freedInWindow: block.freedSeconds != nil,
                rules: roles
            )
            let key = stack.joined(separator: ";") + "\n" + role.rawValue
            grouped[
                key,
                default: PeakHolder(
                    bytes: 0,
                    blocks: 0,
                    allocatedBy: holder?.simplified ?? "?",
                    module: holder?.file ?? "?",
                    stack: stack,
                    role: role
                )
            ]
            .bytes += block.bytes
            grouped[key]!.blocks += 1
            if let resident = block.residentBytes {
                grouped[key]!.residentBytes = (grouped[key]!.residentBytes ?? 0) + resident
            }
        }
        // Largest first; equal sizes by their stacks, so that the order is the same every time.
        return grouped.sorted { ($1.value.bytes, $0.key) < ($0.value.bytes, $1.key) }.map(\.value)
    }

    /// Names for every frame, from the cache or symbolized now (one batch per program).
    func name(_ frames: Set<StackFrame>, scratch: URL) -> [FrameKey: FrameName] {
        let keys = Set(frames.map { FrameKey(module: $0.module, offset: $0.offset) })
        let known = cache.withLock { cache in cache.filter { keys.contains($0.key) } }
        let missing = keys.subtracting(known.keys).sorted { ($0.module, $0.offset) < ($1.module, $1.offset) }
        guard !missing.isEmpty else { return known }
        let symbols = Dictionary(
            frames.map { (FrameKey(module: $0.module, offset: $0.offset), $0.symbol) },
            uniquingKeysWith: { first, _ in first }
        )
        // Escaped before anything else sees them: a newline or NUL in a name (the symbolizer's or a
        // file's) must neither reach a terminal or a CSV raw nor shift the demangler's lines.
        let linkageNames = symbolize(missing, scratch: scratch).enumerated().map { index, name in
            EscapedText.escaped(
                name ?? symbols[missing[index]].flatMap { $0 }
                    ?? "\(Self.fileName(missing[index].module))+0x\(String(missing[index].offset, radix: 16))"
            )
        }
        let full = demangle(linkageNames, simplified: false, scratch: scratch)
        let simplified = demangle(linkageNames, simplified: true, scratch: scratch)
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
    func symbolize(_ keys: [FrameKey], scratch: URL) -> [String?] {
        guard let symbolizer else { return keys.map { _ in nil } }
        let input = keys.map { "\"\($0.module)\" 0x\(String($0.offset, radix: 16))" }.joined(separator: "\n") + "\n"
        guard
            let output = run(
                symbolizer,
                ["--functions=linkage", "--no-inlines", "--output-style=JSON"],
                input: input,
                scratch: scratch
            )
        else { return keys.map { _ in nil } }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
        // One line per frame: a program that answers fewer (none: silent) is not llvm-symbolizer.
        guard lines.count >= keys.count else {
            _ = give(up: symbolizer, because: "answered \(lines.count) of \(keys.count) frames")
            return keys.map { _ in nil }
        }
        return keys.indices.map { index in
            guard index < lines.count,
                let object = try? JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any],
                let symbols = object["Symbol"] as? [[String: Any]],
                let name = symbols.first?["FunctionName"] as? String, !name.isEmpty, name != "??"
            else { return nil }
            return name
        }
    }

    /// Swift names demangled (C++ names llvm-symbolizer has demangled already), one per name.
    func demangle(_ names: [String], simplified: Bool, scratch: URL) -> [String] {
        let swiftNames = names.filter(Self.isSwiftMangled)
        guard !swiftNames.isEmpty else { return names }
        var demangled: [String: String] = [:]
        if let demangler,
            let output = run(
                demangler,
                ["--compact"] + (simplified ? ["--simplified"] : []),
                input: swiftNames.joined(separator: "\n") + "\n",
                scratch: scratch
            )
        {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, name) in swiftNames.enumerated() where index < lines.count && !lines[index].isEmpty {
                demangled[name] = lines[index]
            }
        }
        return names.map { demangled[$0] ?? (Self.isSwiftMangled($0) ? Self.runtimeDemangle($0) : $0) }
    }

    static func isSwiftMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_T")
    }

    static func runtimeDemangle(_ name: String) -> String {
        name.utf8CString.withUnsafeBufferPointer { buffer in
            guard let result = _swift_demangle(buffer.baseAddress, UInt(buffer.count - 1), nil, nil, 0) else {
                return name
            }
            defer { free(result) }
            return String(cString: result)
        }
    }

    static func fileName(_ module: String) -> String {
        EscapedText.escaped(URL(fileURLWithPath: module).lastPathComponent)
    }

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
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc",
        "reallocarray",
    ]

    /// The malloc wrappers and the allocators behind them: never shown in a stack.
    static func isAllocator(_ frame: FrameName) -> Bool {
        let allocatorFiles = ["libc.so", "libjemalloc.so", "libstdc++.so"]
        return allocatorWrappers.contains(frame.simplified) || frame.simplified.hasPrefix("operator new")
            || allocatorFiles.contains { frame.file.hasPrefix($0) }
    }

    /// The entry points, free, and the wrappers' helpers (named where llvm-symbolizer reads them).
    static let allocatorWrappers = allocationEntryPoints.union([
        "free", "record_allocation", "count_block", "account", "new_block", "new_aligned_block",
        "aligned_by_posix_memalign",
    ])

    /// Frames that allocate on someone else's behalf: the allocator, the Swift runtime and
    /// concurrency, the standard library and Foundation's storage (also where it is inlined or
    /// specialized into another file). `allocated_by` is the first frame that is none of these.
    static func isAllocatorRuntimeOrStorage(_ frame: FrameName) -> Bool {
        if isAllocator(frame) { return true }
        let runtimeFiles = [
            "ld-linux", "libgcc_s", "libswiftCore.so", "libswift_Concurrency.so", "libFoundation.so",
            "libFoundationEssentials.so", "libdispatch.so", "libBlocksRuntime.so",
        ]
        if runtimeFiles.contains(where: { frame.file.hasPrefix($0) }) || frame.simplified.hasPrefix("swift_") {
            return true
        }
        var subject = Substring(frame.full)
        let prefixes = [
            "specialized ", "generic specialization ", "function signature specialization ", "merged ",
            "partial apply for ", "outlined ", "static ", "reabstraction thunk helper ", "thunk for ",
        ]
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
    /// deadlock on), both in `scratch`, for at most `timeoutSeconds` and `outputLimitBytes`, and not
    /// past a Ctrl-C: then its process group is killed (a wrapper's own children included), nil is
    /// returned (the names fall back), a warning says why once, and the program is not asked again.
    /// A stuck or flooding symbolizer must never cost a run its rows. It is started as the measured
    /// children are (`ChildProcess.spawn`): with stdin, stdout and stderr and no other descriptor.
    func run(_ program: String, _ arguments: [String], input: String, scratch: URL) -> String? {
        guard !failed.withLock({ $0.contains(program) }), !Interruption.requested else { return nil }
        let stem = "symbolize-\(UInt32.random(in: 0...UInt32.max))"
        let inputFile = scratch.appendingPathComponent(stem + ".in")
        let outputFile = scratch.appendingPathComponent(stem + ".out")
        defer {
            try? FileManager.default.removeItem(at: inputFile)
            try? FileManager.default.removeItem(at: outputFile)
        }
        guard FileManager.default.createFile(atPath: inputFile.path, contents: Data(input.utf8)),
            FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        else { return give(up: program, because: "cannot have its input and output in \(scratch.path)") }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                executable: program,
                arguments: arguments,
                environment: ProcessInfo.processInfo.environment,
                descriptors: [
                    .file(inputFile.path, flags: O_RDONLY), .file(outputFile.path, flags: O_WRONLY),
                    .file("/dev/null", flags: O_WRONLY),
                ]
            )
        } catch ChildProcessError.spawn(_, let error) {
            return give(up: program, because: "cannot start: \(String(cString: strerror(error)))")
        } catch {
            return give(up: program, because: "cannot start: \(error)")
        }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var problem: String?
        while !ChildProcess.hasEnded(pid) {
            let written =
                (try? FileManager.default.attributesOfItem(atPath: outputFile.path)[.size] as? NSNumber)?.intValue ?? 0
            if written > Self.outputLimitBytes {
                problem = "wrote more than \(Self.outputLimitBytes >> 20) MiB"
            } else if Date() >= deadline {
                problem = "took more than \(String(format: "%g", timeoutSeconds)) s"
            } else if Interruption.requested {
                problem = "interrupted"
            }
            if problem != nil { break }
            usleep(5_000)
        }
        // Its process group (its pid: the leader is not reaped yet), whatever it started included.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        Interruption.childEnded(pid)
        if let problem { return give(up: program, because: problem) }
        guard (status & 0x7f) == 0 else { return give(up: program, because: "was killed by signal \(status & 0x7f)") }
        guard (status >> 8) & 0xff == 0 else { return give(up: program, because: "exited \((status >> 8) & 0xff)") }
        guard let data = try? Data(contentsOf: outputFile), data.count <= Self.outputLimitBytes else {
            return give(up: program, because: "its output could not be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func give(up program: String, because reason: String) -> String? {
        let first = failed.withLock { $0.insert(program).inserted }
        if first && reason != "interrupted" {
            let name = shownNames[program] ?? EscapedText.escaped(program)
            StandardError.write(
                "warning: \(name) \(reason); holders are named without it "
                    + "(dladdr's names, or file+offset)\n"
            )
        }
        return nil
    }
}

@_silgen_name("swift_demangle")
private func _swift_demangle(
    _ mangledName: UnsafePointer<CChar>?,
    _ mangledNameLength: UInt,
    _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<UInt>?,
    _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

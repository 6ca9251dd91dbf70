import Foundation
import TestSupport
import Testing

/// Every file bench writes at a path the user names: a device or a FIFO is written through (or
/// refused), a symlink's target is replaced and the link kept, nothing but a regular file is
/// renamed over; a full disk leaves no partial file; an empty `--out`, a folder where a file
/// goes and an earlier run's rows are refused before the first trial; a killed run's scratch is
/// cleared by the next. Real device nodes, FIFOs, links and a full tmpfs; the commands in-process
/// (`InProcessBench`, recorded children) but for the killed run and the next, real `bench` processes.
@Suite(.serialized) struct OutputWritesTests {
    static let tiny = ["--width", "64", "--height", "48"]
    static let quickRun =
        ["run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1"] + tiny

    /// A scratch folder holding a character device (a /dev/null clone: mknod c 1 3), a FIFO, and a
    /// symlink `link.out` to `target.out` ("old").
    struct Specials {
        let folder = BenchProcess.temporaryFolder()
        var device: String { folder.appendingPathComponent("null").path }
        var fifo: String { folder.appendingPathComponent("fifo").path }
        var link: String { folder.appendingPathComponent("link.out").path }
        var target: String { folder.appendingPathComponent("target.out").path }

        /// makedev(1, 3), /dev/null's numbers (glibc's encoding for a major below 4096 and a minor below 256).
        static let nullDevice = dev_t((1 << 8) | 3)

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try #require(
                mknod(device, S_IFCHR | 0o666, Self.nullDevice) == 0,
                "mknod needs root: \(String(cString: strerror(errno)))"
            )
            try #require(mkfifo(fifo, 0o644) == 0)
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.out")
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }

        func kind(_ path: String) -> mode_t {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
        }

        /// Nothing but the four entries (no temporary or partial file left beside them).
        var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }

        func expectIntact(_ context: String) {
            #expect(kind(device) == S_IFCHR, "the device is still a device (\(context))")
            #expect(kind(fifo) == S_IFIFO, "the FIFO is still a FIFO (\(context))")
            #expect(kind(link) == S_IFLNK, "the symlink is still a symlink (\(context))")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "target.out", "\(context)")
        }
    }

    /// Opens the FIFO's reading end without waiting for a writer; the bytes written while bench runs
    /// wait in the pipe (a small file fits its 64 KiB) and are read afterwards.
    static func drain(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }

    /// `fixture --out` writes through a device and a FIFO that is being read, leaving each as it was,
    /// and through a symlink into its target, the link kept (root included).
    @Test func fixtureWritesThroughADeviceAndAReadFIFOAndFollowsASymlink() throws {
        let specials = try Specials()
        defer { specials.remove() }
        let device = InProcessBench.run(["fixture"] + Self.tiny + ["--out", specials.device])
        #expect(device.status == 0, "\(device.standardError)")

        let reader = open(specials.fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        let throughFIFO = InProcessBench.run(["fixture"] + Self.tiny + ["--out", specials.fifo])
        let read = Self.drain(reader)
        close(reader)
        #expect(throughFIFO.status == 0, "\(throughFIFO.standardError)")
        #expect(
            read.starts(with: [0xFF, 0xD8]) && read.count > 1000 && read.count < 65536,
            "\(read.count) bytes through the FIFO"
        )

        let linked = InProcessBench.run(["fixture"] + Self.tiny + ["--out", specials.link])
        #expect(linked.status == 0, "\(linked.standardError)")
        let target = try Data(contentsOf: URL(fileURLWithPath: specials.target))
        #expect(target == read, "the link's target holds the fixture, the same bytes as the FIFO got")
        specials.expectIntact("bench fixture")
        #expect(specials.entries == ["fifo", "link.out", "null", "target.out"])
    }

    /// A FIFO that nobody reads is refused at once (73), without waiting for a reader, and is left a FIFO.
    @Test(.timeLimit(.minutes(1))) func aFIFONobodyReadsIsRefusedAtOnce() throws {
        let specials = try Specials()
        defer { specials.remove() }
        let output = InProcessBench.run(["fixture"] + Self.tiny + ["--out", specials.fifo])
        #expect(output.status == 73, "\(output.standardError)")
        #expect(output.standardError.contains("FIFO that nobody is reading"), "\(output.standardError)")
        specials.expectIntact("a FIFO with no reader")
        #expect(specials.entries == ["fifo", "link.out", "null", "target.out"])
    }

    /// `baseline update --baseline` and `report --report-file` write through a device and a link (into its
    /// target, a dangling one included) and leave them as they were; a folder there is refused (73), named.
    @Test func baselineAndReportWriteThroughDevicesAndFollowLinks() throws {
        let specials = try Specials()
        defer { specials.remove() }
        let run = specials.folder.appendingPathComponent("run")
        let measured = InProcessBench.run(Self.quickRun + ["--out", run.path])
        try #require(measured.status == 0, "\(measured.standardError)")
        let trials = run.appendingPathComponent("trials.json").path

        for destination in [specials.device, specials.link] {
            let output = InProcessBench.run(["baseline", "update", "--from", trials, "--baseline", destination])
            #expect(output.status == 0, "\(destination): \(output.standardError)")
        }
        let baseline = try String(contentsOfFile: specials.target, encoding: .utf8)
        #expect(baseline.contains("\"trials\""), "the link's target holds the baseline")
        specials.expectIntact("bench baseline update")

        let folder = specials.folder.appendingPathComponent("a-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let refused = InProcessBench.run(["baseline", "update", "--from", trials, "--baseline", folder.path])
        #expect(refused.status == 73, "\(refused.standardError)")
        #expect(refused.standardError.contains("it is a folder, not a file"), "\(refused.standardError)")

        let data = specials.folder.appendingPathComponent("data").path
        // A dangling link: the report is made at the target it names, and the link stays.
        try FileManager.default.removeItem(atPath: specials.target)
        for destination in [specials.device, specials.link] {
            let output = InProcessBench.run([
                "report", "--results", run.path, "--data-out", data, "--report-file", destination,
            ])
            #expect(output.status == 0, "\(destination): \(output.standardError)")
        }
        let report = try String(contentsOfFile: specials.target, encoding: .utf8)
        #expect(report.contains("<!-- table:article -->"), "the link's target holds the report")
        specials.expectIntact("bench report")
        let intoFolder = InProcessBench.run([
            "report", "--results", run.path, "--data-out", data, "--report-file", folder.path,
        ])
        #expect(intoFolder.status == 73, "\(intoFolder.standardError)")
        #expect(specials.entries == ["a-folder", "data", "fifo", "link.out", "null", "run", "target.out"])
    }

    /// On a full disk a write leaves no partial file behind and exits 73 saying which file and that the disk
    /// is full (the fixture cache naming --fixture-cache), without a framework's error dump.
    @Test func aFullDiskLeavesNoPartialFileAndSaysWhatIsFull() throws {
        let mount = try TinyMount(options: "size=1m")
        defer { mount.unmount() }
        // 2000x1500 at quality 90 is about 1.6 MB: more than the disk holds.
        let big = ["fixture", "--width", "2000", "--height", "1500"]
        let out = InProcessBench.run(big + ["--out", mount.path.appendingPathComponent("x.jpg").path])
        #expect(out.status == 73, "\(out.standardError)")
        #expect(out.standardError.contains("No space left on device"), "\(out.standardError)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: mount.path.path)) == [])

        let cache = mount.path.appendingPathComponent("cache")
        let cached = InProcessBench.run(big + ["--fixture-cache", cache.path])
        #expect(cached.status == 73, "\(cached.standardError)")
        #expect(
            cached.standardError.contains("cannot write the fixture cache file")
                && cached.standardError.contains("No space left on device")
                && cached.standardError.contains("--fixture-cache"),
            "\(cached.standardError)"
        )
        #expect(!cached.standardError.contains("NSCocoaErrorDomain"), "\(cached.standardError)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: cache.path)) == [])
    }

    /// An empty --out (an unset variable, say) is a usage error for every command, and nothing is written
    /// into the current folder.
    @Test func anEmptyOutIsRefusedByEveryCommand() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands = [
            ["fixture"] + Self.tiny, Self.quickRun,
            ["sweep", "--strategy", "data", "--sizes", "0.05", "--runs", "1"],
            ["corpus", folder.path, "--runs", "1", "--render", "none"],
            ["scenario", "list-scroll", "--sizes", "64x48", "--rows", "2", "--visible", "1"],
        ]
        for command in commands {
            let output = InProcessBench.run(command + ["--out", ""])
            #expect(output.status == 64, "\(command[0]): \(output.standardError)")
            #expect(output.standardError.contains("--out is empty"), "\(command[0]): \(output.standardError)")
        }
        #expect(
            (try FileManager.default.contentsOfDirectory(atPath: folder.path)) == [],
            "nothing written into the working folder"
        )
    }

    /// A second run into a folder that holds a run's rows is refused (73) naming that run and --replace;
    /// the first run's rows are kept. With --replace the second run measures.
    @Test func aSecondRunIsRefusedNamingTheFirstUnlessToldToReplace() throws {
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let first = InProcessBench.run(Self.quickRun + ["--out", out.path])
        try #require(first.status == 0, "\(first.standardError)")
        let trials = out.appendingPathComponent("trials.csv")
        let before = try Data(contentsOf: trials)
        let firstID = try #require(try JobsTests.rows(out).first?["run_id"])

        let second = InProcessBench.run(Self.quickRun + ["--out", out.path])
        #expect(second.status == 73, "\(second.standardError)")
        #expect(
            second.standardError.contains("already holds trials.csv of run \(firstID)")
                && second.standardError.contains("--replace"),
            "\(second.standardError)"
        )
        #expect(try Data(contentsOf: trials) == before, "the first run's rows are kept")

        // A process of its own: a run's id is its start's second and pid, which an in-process run shares.
        let replaced = try BenchProcess.run(Self.quickRun + ["--out", out.path, "--replace"])
        #expect(replaced.status == 0, "\(replaced.standardError)")
        let rows = try JobsTests.rows(out)
        #expect(rows.count == 1 && rows[0]["run_id"] != firstID)
    }

    /// A folder where an output file goes is refused (73) before the first trial, naming the file.
    @Test func aFolderWhereAFileGoesIsRefusedBeforeTheFirstTrial() throws {
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        try FileManager.default.createDirectory(
            at: out.appendingPathComponent("summary.csv"),
            withIntermediateDirectories: true
        )
        let output = InProcessBench.run(Self.quickRun + ["--out", out.path])
        #expect(output.status == 73, "\(output.standardError)")
        #expect(
            output.standardError.contains("cannot write summary.csv in --out")
                && output.standardError.contains("it is a folder"),
            "\(output.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("trials.csv").path), "no trial ran")
    }

    /// The next run removes the scratch folder a run killed by SIGKILL left in $TMPDIR, and only that:
    /// other names, rescue folders and a live process's scratch stay.
    @Test func theNextRunRemovesTheScratchOfAKilledRun() throws {
        // A 1600x1200 fixture (about 600 kB) at 100 kB/s: the child is mid-download for seconds.
        let slow = [
            "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1",
            "--width", "1600", "--height", "1200", "--bandwidth", "100k",
        ]
        let killed = try RowsKeptTests.RunningBench(slow + ["--out", "killed"])
        defer { try? FileManager.default.removeItem(at: killed.folder) }
        let deadline = Date().addingTimeInterval(120)
        while killed.scratchLeft.isEmpty && killed.isRunning && Date() < deadline { usleep(20_000) }
        let child = try #require(killed.waitForChild(), "the trial's child")
        killed.signal(SIGKILL)
        _ = killed.wait()
        kill(-child, SIGKILL)  // the orphaned child (its own process group) goes too
        kill(child, SIGKILL)
        let left = killed.scratchLeft
        try #require(left.count == 1 && left[0].hasPrefix("bench-\(killed.pid)-"), "the killed run's scratch: \(left)")
        // Not ours to remove: another user's name, a rescue folder, a live process's scratch.
        let keep = ["bench-rescue-x", "bench-test-12345678", "bench-\(getpid())-ABCDEF12"]
        for name in keep {
            try FileManager.default.createDirectory(
                at: killed.scratch.appendingPathComponent(name),
                withIntermediateDirectories: true
            )
        }

        let next = try RowsKeptTests.RunningBench(Self.quickRun + ["--out", "next"], folder: killed.folder)
        #expect(next.wait() == 0, "\(next.standardError)")
        let now = (try FileManager.default.contentsOfDirectory(atPath: killed.scratch.path)).sorted()
        #expect(now == keep.sorted(), "\(now)")
    }

    /// `bench run --out X` writes environment.txt, which docs/OUTPUT.md lists among a run's files.
    @Test func aRunWritesItsEnvironment() throws {
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = InProcessBench.run(Self.quickRun + ["--out", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        let text = try String(contentsOf: out.appendingPathComponent("environment.txt"), encoding: .utf8)
        for label in ["cpu:", "memory:", "os:", "kernel", "swift:", "glibc:", "jemalloc:", "libjpeg-turbo:"] {
            #expect(text.contains(label), "\(label) in \(text)")
        }
        #expect(output.standardOutput.contains("environment.txt"), "named among the files written")
    }
}

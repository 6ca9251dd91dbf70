import BenchCore
import Foundation
import Report

/// What every encoding's peaks are made of (scripts/encodings.py): encodings.csv's floor and peaks,
/// encodings-holders.csv's holders by role and encodings-residency.csv's RSS by category, our runs
/// only, one case per encoding, render and allocator.
package struct EncodingBreakdown: Sendable {
    static let holdersFile = "encodings-holders.csv"
    static let residencyFile = "encodings-residency.csv"
    /// The `--max-pixel` scripts/encodings.py gives every run (its default); a row whose recorded
    /// `floor_bytes` is not the floor at this size gets no breakdown rather than a wrong one.
    static let studyMaxPixel = 1024

    var cases: [NeededTables.Case]

    struct RunKey: Hashable {
        var encoding: String
        var render: String
        var allocator: String
        var run: Int
    }

    /// The folder's breakdown, or nil without encodings.csv; the holders and residency files are optional.
    static func load(from folder: URL) throws -> EncodingBreakdown? {
        func text(_ name: String) throws -> String? {
            let url = folder.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            do {
                return try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw ReportError.malformed(path: url.path, problem: error)
            }
        }
        guard let encodings = try text(EncodingCosts.fileName) else { return nil }
        do {
            return try parse(encodings: encodings, holders: text(holdersFile), residency: text(residencyFile))
        } catch {
            throw ReportError.malformed(path: folder.path, problem: error)
        }
    }

    /// A CSV's rows as dictionaries by column, after checking that `required` columns are there.
    static func records(_ text: String, file: String, required: [String]) throws -> [[String: String]] {
        let table = try CSV.parse(text).filter { $0 != [""] }
        guard let header = table.first else { throw CSVError("\(file) is empty") }
        let missing = required.filter { !header.contains($0) }
        guard missing.isEmpty else { throw CSVError("\(file) lacks the columns \(missing.joined(separator: ", "))") }
        return try table.dropFirst().enumerated().map { index, fields in
            guard fields.count == header.count else {
                throw CSVError("\(file) line \(index + 2) has \(fields.count) fields, the header \(header.count)")
            }
            return Dictionary(zip(header, fields)) { first, _ in first }
        }
    }

    static func key(_ record: [String: String], file: String) throws -> RunKey {
        guard let encoding = record["encoding"], let render = record["render"], let allocator = record["allocator"],
            let run = Int(record["run"] ?? "")
        else {
            throw CSVError("\(file): a row without encoding, render, allocator or an integer run")
        }
        return RunKey(encoding: encoding, render: render, allocator: allocator, run: run)
    }

    package static func parse(encodings: String, holders: String?, residency: String?) throws -> EncodingBreakdown {
        let keyColumns = ["encoding", "render", "allocator", "run"]
        let runs = try records(
            encodings,
            file: EncodingCosts.fileName,
            required: keyColumns + [
                "tool", "status", "payload_bytes", "image_width", "image_height",
                "peak_rss_delta_bytes", "peak_heap_delta_bytes",
            ]
        )
        .filter { $0["tool"] == "ours" && $0["status"] == "ok" }
        var holdersByRun: [RunKey: [(rank: Int, strategy: String, holder: PeakHolder)]] = [:]
        for record in try holders.map({
            try records(
                $0,
                file: holdersFile,
                required: keyColumns + [
                    "strategy", "rank", "bytes", "blocks", "allocated_by", "module", "role", "resident_bytes",
                ]
            )
        }) ?? [] {
            guard let rank = Int(record["rank"]!), let bytes = Int(record["bytes"]!) else {
                throw CSVError("\(holdersFile): rank and bytes must be integers")
            }
            let holder = PeakHolder(
                bytes: bytes,
                blocks: Int(record["blocks"]!) ?? 0,
                allocatedBy: record["allocated_by"]!,
                module: record["module"]!,
                stack: [],
                role: HolderRole(rawValue: record["role"]!),
                residentBytes: Int(record["resident_bytes"]!)
            )
            holdersByRun[try key(record, file: holdersFile), default: []].append((rank, record["strategy"]!, holder))
        }
        var residencyByRun: [RunKey: [ResidencyCategory: Int]] = [:]
        for record in try residency.map({
            try records(
                $0,
                file: residencyFile,
                required: keyColumns + ["moment", "category", "bytes"]
            )
        }) ?? []
        where record["moment"] == ResidencyMoment.rssPeak.rawValue {
            guard let category = ResidencyCategory(rawValue: record["category"]!),
                let bytes = Int(record["bytes"]!)
            else {
                throw CSVError(
                    "\(residencyFile): category or bytes is not valid (categories: "
                        + ResidencyCategory.allCases.map(\.rawValue).joined(separator: ", ") + ")"
                )
            }
            residencyByRun[try key(record, file: residencyFile), default: [:]][category] = bytes
        }
        var order: [[String]] = []
        var grouped: [[String]: [NeededRun]] = [:]
        for record in runs {
            let key = try key(record, file: EncodingCosts.fileName)
            let labels = [key.encoding, key.render, key.allocator]
            if grouped[labels] == nil { order.append(labels) }
            let heap = Int(record["peak_heap_delta_bytes"]!)
            let floor = Int(record["floor_bytes"] ?? "")
            var excess: [HolderRole: Int]?
            // The small blocks' row is ranked last, as in holders.csv.
            let held = (holdersByRun[key] ?? []).sorted { $0.rank < $1.rank }
            if let heap, let floor, let strategy = held.first?.strategy, let render = RenderMode(name: key.render),
                let parts = RuleFloor.parts(
                    strategy: strategy,
                    render: render,
                    payloadBytes: Int(record["payload_bytes"]!),
                    sourceWidth: Int(record["image_width"]!),
                    sourceHeight: Int(record["image_height"]!),
                    maxPixel: Self.studyMaxPixel
                ),
                parts.totalBytes == floor
            {
                let byRole = FloorExcess.byRole(held.map(\.holder), parts: parts, heapOverFloor: heap - floor)
                excess = byRole.isEmpty ? nil : Dictionary(byRole.map { ($0.role, $0.bytes) }) { first, _ in first }
            }
            grouped[labels, default: []].append(
                NeededRun(
                    floorBytes: floor,
                    heapPeakBytes: heap,
                    excess: excess,
                    peakRSSBytes: Int(record["peak_rss_delta_bytes"]!),
                    residency: residencyByRun[key]
                )
            )
        }
        return EncodingBreakdown(cases: order.map { ($0, grouped[$0]!) })
    }

    static let remeasure = "`make encodings` (scripts/encodings.py)"
    static let labels = ["encoding", "render", "allocator"]

    package func floorTable() -> String {
        NeededTables.gaps(cases, remeasure: Self.remeasure) + NeededTables.heapTable(labels: Self.labels, cases: cases)
    }

    package func residencyTable() -> String { NeededTables.residencyTable(labels: Self.labels, cases: cases) }
}

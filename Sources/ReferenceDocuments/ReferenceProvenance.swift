import BenchCore
import Foundation
import Report

/// Which build measured each study of the committed reference: results/provenance.json, one entry a
/// study, written by `bench-reference measure` when the study's last step has succeeded, and read by
/// REPORT.md's table of who measured what and README.md's commit. A study measured before this record
/// was kept has no entry and is "not recorded", never a guess.
package struct ReferenceProvenance: Codable, Equatable, Sendable {
    package static let fileName = "provenance.json"

    /// One study's measurement: the day it ended (UTC), the commit and build of the binary that took it.
    package struct Entry: Codable, Equatable, Sendable {
        /// yyyy-MM-dd, UTC.
        package var measured: String
        package var commit: String
        /// Whether the checkout's build inputs had changes; nil when not known.
        package var dirty: Bool?
        /// The GNU build ID of the binary that measured.
        package var build: String

        /// The commit as a reader needs it: its first 12 digits, "with uncommitted changes" when so.
        package var commitText: String {
            let short = commit.count == 40 ? String(commit.prefix(12)) : commit
            return short + (dirty == true ? " with uncommitted changes" : "")
        }
    }

    /// Study name (`bench-reference measure`'s) -> its latest measurement.
    package var studies: [String: Entry] = [:]

    package init(studies: [String: Entry] = [:]) {
        self.studies = studies
    }

    /// The entry for `binary`, measured now: its build ID, and the commit of the checkout `checkoutOf`
    /// was built in (the example's own binary is built from the same checkout as bench).
    package static func entry(binary: String, checkoutOf bench: String, now: Date = Date()) -> Entry {
        let checkout = CheckoutCommit.find(environment: [:], executable: bench)
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        return Entry(
            measured: day.string(from: now),
            commit: checkout.commit,
            dirty: checkout.dirty,
            build: ExecutableBuildID.read(path: binary) ?? Provenance.unknown
        )
    }

    /// The folder's record; empty when it has none (every study then reads "not recorded").
    package static func load(from folder: URL) throws -> ReferenceProvenance {
        let url = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return ReferenceProvenance() }
        do {
            return try JSONDecoder().decode(ReferenceProvenance.self, from: Data(contentsOf: url))
        } catch {
            throw ReportError.malformed(path: url.path, problem: error)
        }
    }

    /// Sets `study`'s entry in the folder's record, keeping the others; replaced atomically.
    package static func record(_ entry: Entry, study: String, in folder: URL) throws {
        var record = try load(from: folder)
        record.studies[study] = entry
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(encoder.encode(record) + Data("\n".utf8), to: folder.appendingPathComponent(fileName))
    }

    /// REPORT.md's table: each study, what it feeds, when and by which commit and build it was measured.
    package func table() -> String {
        let rows = ReferenceStudies.Study.recorded.map { study -> [String] in
            guard let entry = studies[study.rawValue] else {
                return [study.rawValue, study.feeds, "not recorded", "–", "–"]
            }
            return [study.rawValue, study.feeds, entry.measured, entry.commitText, String(entry.build.prefix(12))]
        }
        return "Written by `bench-reference measure STUDY` when a study ends (results/\(Self.fileName)); "
            + "a study measured before that record was kept is \"not recorded\".\n\n"
            + MarkdownTable.render(
                header: ["study", "feeds", "measured", "commit", "build"],
                rows: rows,
                leftAligned: 5
            )
    }

    /// README.md's line: the matrix's commit and day, which its figures come from.
    package func values() -> [String: String] {
        guard let matrix = studies[ReferenceStudies.Study.matrix.rawValue] else {
            return ["reference_matrix_commit": "a build that was not recorded"]
        }
        return ["reference_matrix_commit": "commit \(matrix.commitText), \(matrix.measured)"]
    }
}

import Foundation
import ReferenceDocuments
import Report
import Testing

/// Every value the report computes from the committed results is quoted by a document (a
/// `<!-- value:NAME -->` marker in README.md, docs/ or results/): a value no document uses is
/// dead code. Values made for every cell, strategy or encoding are one family: a family is in use
/// when a document quotes any of its members (a reader may quote another cell's the same way).
@Suite struct UnusedValuesTests {
    static let documents = DocumentFiguresTests.documents

    static func markers(in text: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"<!-- value:([^ ]+) -->"#)
        return Set(
            regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                String(text[Range($0.range(at: 1), in: text)!])
            }
        )
    }

    /// The name with its strategy, encoding or workload (and then renderer and allocator) replaced by a placeholder.
    static func family(_ name: String, strategies: [String]) -> String {
        var text = name
        func replace(_ pattern: String, _ template: String) {
            let regex = try! NSRegularExpression(pattern: pattern)
            text = regex.stringByReplacingMatches(
                in: text,
                range: NSRange(text.startIndex..., in: text),
                withTemplate: template
            )
        }
        replace(#"^enc_.+?_(full|thumbnail|stream|vips)(_|$)"#, "enc_E_$1$2")
        replace(#"^jobs_[a-z]+_(j\d+|speedup)"#, "jobs_W_$1")
        replace(#"^jobs_W_j\d+"#, "jobs_W_jN")
        for strategy in strategies.sorted(by: { $0.count > $1.count }) {
            replace("(^|_)" + NSRegularExpression.escapedPattern(for: strategy) + "(?=_|$)", "$1S")
        }
        // Renderer and allocator only in names made per cell or encoding; others are one value each.
        guard text.hasPrefix("enc_E_") || text.split(separator: "_").contains("S") else { return text }
        replace(#"_(none|full|thumbnail|stream)(?=_|$)"#, "_R")
        replace(#"_(system|jemalloc)(?=_|$)"#, "_A")
        return text
    }

    @Test func everyComputedValueIsQuotedByADocument() throws {
        let root = DocumentFiguresTests.root
        var used: Set<String> = []
        for document in Self.documents {
            used.formUnion(
                Self.markers(in: try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8))
            )
        }
        let figures = try ResultsReport(directory: root.appendingPathComponent("results")).load()
        // The example package's strategies (ahc-collect) appear with dashes as underscores in its values
        // (only theirs: data_stream is the data task with the stream renderer, not data-stream).
        let example = (figures.example?.summaries ?? []).map(\.cell.strategy)
        let names = figures.chart.summaries.map(\.cell.strategy) + example
        let strategies = Array(Set(names + example.map { $0.replacingOccurrences(of: "-", with: "_") }))
        let usedFamilies = Set(used.map { Self.family($0, strategies: strategies) })
        var unused: [String: [String]] = [:]
        for name in figures.values().keys where !usedFamilies.contains(Self.family(name, strategies: strategies)) {
            unused[Self.family(name, strategies: strategies), default: []].append(name)
        }
        let listed = unused.keys.sorted().map { "\($0) (e.g. \(unused[$0]!.sorted()[0]))" }
        #expect(unused.isEmpty, "values no document quotes, by family: \(listed.joined(separator: ", "))")
    }

    @Test func aFamilyIsACellsValuesUnderAnyCell() {
        let strategies = ["data", "download", "async-data"]
        #expect(Self.family("async-data_full_jemalloc_heap_mb", strategies: strategies) == "S_R_A_heap_mb")
        #expect(Self.family("data_none_system_heap_mb", strategies: strategies) == "S_R_A_heap_mb")
        #expect(Self.family("data_stream_system_mb", strategies: strategies + ["data-stream"]) == "S_R_A_mb")
        #expect(Self.family("coldwarm_download_system_cost_mb", strategies: strategies) == "coldwarm_S_A_cost_mb")
        #expect(Self.family("enc_jpeg_progressive_444_thumbnail_bpp", strategies: strategies) == "enc_E_R_bpp")
        #expect(Self.family("jobs_corpus_j2_min_s", strategies: strategies) == "jobs_W_jN_min_s")
        #expect(Self.family("payload_buffer_capacity_mb", strategies: strategies) == "payload_buffer_capacity_mb")
        #expect(Self.family("corpus_worst_full_mb", strategies: strategies) == "corpus_worst_full_mb")
    }
}

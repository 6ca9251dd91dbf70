import BenchCore
import Foundation
import Measuring
import ReferenceDocuments
import Report
import Testing

/// Every figure README.md, docs/*.md, REPORT.md and SCENARIO.md show comes from committed data through the generator:
/// outside the generated parts (`<!-- table:... -->`, `<!-- value:... -->`, and validate.py's
/// `<!-- validation -->` block) no number with a unit of memory, time or share may be typed by hand.
/// Constants of other people's code, which no run of ours measures, are listed with their source.
@Suite struct DocumentFiguresTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The documents whose figures `make reference` regenerates with `bench-reference --document`
    /// (`bench-reference measure` passes README.md and every docs/*.md), relative to the root.
    static let readmeDocuments: [String] = {
        let docs =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    /// Every document that shows figures: README.md and docs/, and the reference's own reports.
    static let documents = readmeDocuments + ["results/REPORT.md", "results/SCENARIO.md"]

    /// Figures that are definitions or constants of the libraries described, not measurements.
    static let constants: [String: String] = [
        "10^6 bytes": "the definition of MB used throughout",
        "16 KiB": "libcurl's CURL_MAX_WRITE_SIZE, the most it hands over per write callback",
        "1 MiB": "CFData's threshold above which it rounds capacity up to a power of two (CFData.c)",
        "10 s": "jemalloc's default dirty_decay_ms",
        "256 KiB":
            "swift-nio's ByteTransferStrategy.automatic: Data(buffer:) copies up to this size (ByteBuffer-foundation.swift)",
        "4 bytes a pixel": "8-bit RGBA, the definition of the bitmap",
        "2 bytes per coefficient": "libjpeg's JCOEF is a short (jmorecfg.h); doc/libjpeg.txt, Memory usage",
    ]

    /// A number followed by a unit of memory, time, rate or share, or a number with thousands separators.
    static let figure = try! NSRegularExpression(
        pattern:
            #"(?<![\w.^-])~?\d[\d,.]*(?:\s?[-–]\s?\d[\d,.]*)?\s?(?:MB|MiB|KB|KiB|kB|GB|GiB|%|ms|µs|s|Hz|kHz|bytes|B)(?![\w/])"#
            + #"|(?<![\w.-])\d{1,3}(?:,\d{3})+(?![\d])"#
    )

    /// The document with its generated parts removed.
    static func handWritten(_ document: String) -> String {
        var text = document
        for pattern in [
            #"<!-- (table|value):([^ ]+) -->.*?<!-- /\1:\2 -->"#, #"<!-- validation -->.*?<!-- /validation -->"#,
        ] {
            let regex = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
            text = regex.stringByReplacingMatches(
                in: text,
                range: NSRange(text.startIndex..., in: text),
                withTemplate: ""
            )
        }
        return text
    }

    static func typedFigures(in document: String) -> [String] {
        let text = handWritten(document)
        var found: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            var checked = line
            for constant in constants.keys { checked = checked.replacingOccurrences(of: constant, with: "") }
            let range = NSRange(checked.startIndex..., in: checked)
            for match in figure.matches(in: checked, range: range) {
                found.append(
                    "'\(String(checked[Range(match.range, in: checked)!]))' in: \(line.trimmingCharacters(in: .whitespaces))"
                )
            }
        }
        return found
    }

    /// The listing finds the manual: a wrong root or folder would leave docs/ unchecked.
    @Test func theDocumentsIncludeTheManualInDocs() {
        let docs = Self.readmeDocuments.filter { $0.hasPrefix("docs/") }
        #expect(Self.readmeDocuments.first == "README.md")
        #expect(docs.contains("docs/MEASUREMENT.md"), "\(Self.readmeDocuments)")
        #expect(docs.count >= 2 && docs.count <= 30, "\(docs)")
    }

    @Test(arguments: DocumentFiguresTests.documents)
    func everyFigureIsGenerated(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let typed = Self.typedFigures(in: text)
        #expect(
            typed.isEmpty,
            "\(document) has figures typed by hand (put them between value markers):\n\(typed.joined(separator: "\n"))"
        )
    }

    @Test func theCheckSeesAFigureTypedByHandAndNotAGeneratedOne() {
        let document = """
            The peak is <!-- value:data_none_system_mb -->26.4<!-- /value:data_none_system_mb --> MB.
            It was about 126 MB once, within 0.5%, 13,108,402 bytes.
            MB is 10^6 bytes; libcurl writes 16 KiB chunks.
            """
        #expect(Self.typedFigures(in: document).count == 3)
    }

    /// What `bench-reference --document` computes from the committed results, once for every document.
    static let generated = Result {
        let figures = try ResultsReport(directory: root.appendingPathComponent("results")).load()
        let blocks = figures.blocks().merging(OutputFiles.documentBlocks) { $1 }
        return (blocks: blocks, values: figures.values())
    }

    /// The generated parts of README.md and docs/ are what `bench-reference --document` makes of the committed results.
    @Test(arguments: DocumentFiguresTests.readmeDocuments)
    func regeneratingFromTheCommittedResultsChangesNothing(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let generated = try Self.generated.get()
        let regenerated = try GeneratedSections.apply(to: text, blocks: generated.blocks, values: generated.values)
        #expect(
            regenerated == text,
            "\(document) is stale: run `make reference` (or bench-reference --document \(document))"
        )
    }
}

import BenchCore
import Foundation
import Harness
import Imaging

/// gnuplot's input for the corpus chart (scripts/plots/corpus.gp): one block per encoding, one line
/// per image (megapixels, then each renderer's median peak in MB, `?` where missing), and vars.gp
/// with the blocks' titles and the renderers' names.
package enum CorpusChartData {
    package static func files(_ costs: [ImageCost], renders: [RenderMode]) -> [(name: String, contents: String)] {
        var groups: [String: [ImageCost]] = [:]
        for cost in costs where cost.image.facts != nil {
            groups[cost.image.facts!.encodingLabel, default: []].append(cost)
        }
        let labels = groups.keys.sorted()
        var blocks: [String] = []
        for label in labels {
            var lines = ["# \(label): megapixels, " + renders.map { "\($0.rawValue) peak MB" }.joined(separator: ", ")]
            for cost in groups[label]!.sorted(by: { $0.image.facts!.pixelCount < $1.image.facts!.pixelCount }) {
                let megapixels = Double(cost.image.facts!.pixelCount) / 1e6
                lines.append(
                    ([String(format: "%.4f", megapixels)]
                        + renders.map { mode in
                            cost.medianPeakByRender[mode].map { String(format: "%.3f", $0 / 1e6) } ?? "?"
                        }).joined(separator: " ")
                )
            }
            blocks.append(lines.joined(separator: "\n"))
        }
        let vars: [String] = [
            "corpus_count = \(labels.count)",
            array("corpus_title", labels),
            "render_count = \(renders.count)",
            array("render_name", renders.map(\.rawValue)),
        ]
        return [
            ("corpus.dat", blocks.joined(separator: "\n\n\n") + "\n"), ("vars.gp", vars.joined(separator: "\n") + "\n"),
        ]
    }

    /// A gnuplot array of quoted strings (at least one element: gnuplot has no empty arrays).
    static func array(_ name: String, _ values: [String]) -> String {
        let quoted: [String] = values.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
        let items: String = quoted.isEmpty ? "''" : quoted.joined(separator: ", ")
        return "array \(name)[\(max(values.count, 1))] = [\(items)]"
    }
}

import Foundation

/// The gate's thresholds the tests compare with, as a file of the tests' own: 2,000,000 bytes or 5%
/// for both metrics, p < 0.005, CV warning over 10%. Not results/thresholds.json: retuning the
/// committed gate must not move what an unrelated test expects (only ReferenceTests read results/).
public enum GateThresholdsFile {
    public static let json = """
        {
          "significance_level": 0.005,
          "cv_warning_percent": 10,
          "metrics": {
            "peak_rss_delta_bytes": { "absolute_bytes": 2000000, "relative_percent": 5 },
            "peak_allocated_delta_bytes": { "absolute_bytes": 2000000, "relative_percent": 5 }
          }
        }

        """

    /// The file's path, written once per test process under .build/ (the suite's TMPDIR must be left
    /// empty; .build/ is the build's, like the fixture cache).
    public static let path: String = {
        let file = packageRoot.appendingPathComponent(".build/test-thresholds.json")
        try? Data(json.utf8).write(to: file, options: .atomic)
        return file.path
    }()
}

import Foundation

/// How each study of the committed reference (results/) is re-measured: the steps
/// `bench-reference measure STUDY` runs. Every figure results/ holds comes from one of these, so that
/// a re-measure is one command and its recipe is read in one place.
package struct ReferenceStudies: Sendable {
    /// The studies, in the order `all` measures them.
    package enum Study: String, CaseIterable, Sendable {
        /// The full matrix: every strategy, none/full/thumbnail/stream, both allocators, 5 runs (results/trials.csv).
        case matrix
        /// Peak against payload size, every strategy, fetch only (results/sweep.csv).
        case sweep
        /// A fresh process's first request against a warmed-up one's, against nginx (results/cold-warm/).
        case coldWarm = "cold-warm"
        /// The example corpus: full, thumbnail and stream (results/corpus/) and its chart.
        case corpus
        /// Wall time serial against --jobs 2, and the two matrices compared (results/jobs/).
        case jobs
        /// The same picture in every encoding (results/encodings*.csv).
        case encodings
        /// The stream renderer's decode time against the thumbnail renderer's, in pairs, per encoding
        /// (results/decode-time.csv).
        case decodeTime = "decode-time"
        /// The example package's own loader (results/example/).
        case example
        /// The scrolling list: caps, memory limits, faults, speeds (results/list-scroll*.csv).
        case scenario
        /// Who holds the peak, 20 runs a cell (results/holders/).
        case holders
        /// An image server under load: the article's two fetches and two renderers, C = 1, 4, 16 (results/server/).
        case server
        /// The image server under a memory budget: the bound at C = 16 and 64, and a mixed corpus with the
        /// budget beside --workers and nothing (results/server-budget/).
        case serverBudget = "server-budget"
        /// What the residency snapshots add to a trial: the same cells with them on and off
        /// (results/residency-cost.csv).
        case residencyCost = "residency-cost"
        /// Where a trial's wall time goes and the settle's evidence (results/overhead/); not in `all`.
        case overhead
        /// Our peaks against heaptrack, massif and /usr/bin/time (results/validation.md); not in `all`.
        case validation
        /// Who holds the peak against heaptrack's peak consumers (results/holders/validation.md); not in `all`.
        case holdersValidation = "holders-validation"
        /// The charts, REPORT.md, SCENARIO.md and the documents' figures regenerated from results/.
        case documents
        /// Every study above but overhead and the two validations, then the documents once.
        case all

        /// The studies `all` measures, in order.
        package static let measuredByAll: [Study] = [
            .matrix, .sweep, .coldWarm, .corpus, .jobs, .encodings, .decodeTime, .example, .scenario,
            .residencyCost, .holders, .server, .serverBudget,
        ]

        /// The studies that measure, each recorded in results/provenance.json when it ends.
        package static let recorded: [Study] = measuredByAll + [.overhead, .validation, .holdersValidation]

        /// The parts of the documents a study's data feeds (REPORT.md's sections unless named).
        package var feeds: String {
            switch self {
            case .matrix:
                return "README.md's figures; the article's four cases; every strategy and renderer; memory over time"
            case .sweep: return "payload-size sweep"
            case .coldWarm: return "the first request: cold against warm"
            case .corpus: return "a corpus of real photographs"
            case .jobs: return "children in parallel: --jobs"
            case .encodings: return "what the encoding costs"
            case .decodeTime: return "what the encoding costs: the stream renderer's decode time"
            case .example: return "AsyncHTTPClient measured through the library"
            case .scenario: return "SCENARIO.md"
            case .holders: return "who holds the peak, and how much of it is needed"
            case .server: return "an image server under load"
            case .serverBudget: return "an image server under load: a budget that bounds the peak"
            case .residencyCost: return "who holds the peak: what the attribution costs"
            case .overhead: return "the settle"
            case .validation: return "are the numbers right? the probe against independent tools"
            case .holdersValidation: return "who holds the peak: against heaptrack"
            case .documents, .all: return "–"
            }
        }
    }

    /// The `bench` binary every study measures with.
    package var bench: String
    /// The committed reference folder.
    package var results: String
    /// The `swift` driver (the example package and package-benchmark are built with it).
    package var swift: String
    /// Where the example corpus is assembled (scripts/corpus-photos.sh).
    package var corpusImages: String
    /// The documents whose marked figures are regenerated: README.md and docs/*.md.
    package var documents: [String]
    /// The prefix of the scratch folders the studies measure into before results/ is written.
    package var scratchPrefix = "/tmp/image-memory-bench"

    package init(bench: String, results: String, swift: String, corpusImages: String, documents: [String]) {
        self.bench = bench
        self.results = results
        self.swift = swift
        self.corpusImages = corpusImages
        self.documents = documents
    }

    /// The matrix of `all` and of the jobs and overhead studies.
    static let matrixArguments = [
        "--strategy", "all", "--render", "none", "--render", "full", "--render", "thumbnail", "--render", "stream",
        "--runs", "5",
    ]
    /// The scrolling list's caps (also `make scenario`'s defaults).
    static let scenarioCapArguments = [
        "--strategy", "data,download", "--render", "full,thumbnail", "--max-concurrent", "1,2,4,6,8,16",
        "--rows", "60", "--visible", "8", "--speed", "20", "--bandwidth", "10M", "--runs", "3",
    ]
    static let corpusArguments = ["--runs", "3"]
    static let holdersArguments = [
        "--strategy", "data", "--strategy", "download", "--strategy", "async-data", "--strategy", "contents-of",
        "--render", "none", "--render", "full", "--render", "thumbnail", "--allocator", "system", "--allocator",
        "jemalloc", "--runs", "20",
    ]
    /// The image server: both fetches and renderers of the article's choice, both allocators, render
    /// threads at the cores and unbounded, three concurrencies, 3 runs (9 points a cell's slope).
    static let serverArguments = [
        "--strategy", "data,download", "--render", "full,stream", "--allocator", "system,jemalloc",
        "--render-threads", "2,unbounded", "--concurrency", "1,4,16", "--requests", "32", "--runs", "3",
    ]
    /// C = 64 with every decode at once, under a memory limit (data + full holds about 7 GB):
    /// whether the line fitted up to C = 16 still holds (results/server-64/).
    static let server64Arguments = [
        "--strategy", "data,download", "--render", "full,stream", "--render-threads", "unbounded",
        "--concurrency", "64", "--requests", "128", "--runs", "2", "--memory-limit", "12Gi",
    ]
    /// The measurement's own cost under load: the same cell with the exact heap and residency on and
    /// both off (results/server-cost/counted and uncounted/), its throughput the figure.
    static let serverCostArguments = [
        "--strategy", "download", "--render", "stream", "--concurrency", "16", "--requests", "96", "--runs", "5",
    ]
    /// Where the server's RSS goes at its peak (results/server-residency/): the article's cells at
    /// C = 16 with render threads at the cores, both allocators.
    static let serverResidencyArguments = [
        "--strategy", "data,download", "--render", "full,stream", "--allocator", "system,jemalloc",
        "--render-threads", "2", "--concurrency", "16", "--requests", "32", "--runs", "3",
    ]
    /// The budget every server-budget run is given: the 512 MiB.
    static let serverBudgetArguments = ["--memory-budget", "512Mi"]
    /// The bound (results/server-budget/bound/): the article's cells at C = 16 and 64, both allocators,
    /// render threads at the cores, 2 runs.
    static let serverBoundArguments = [
        "--strategy", "data,download", "--render", "full,stream", "--allocator", "system,jemalloc",
        "--render-threads", "2", "--concurrency", "16,64", "--requests", "96", "--runs", "2",
    ]
    /// The mixed corpus's images, 1 to 50 megapixels (width, height, seed), most of them small as
    /// on the web; `bench fixture` makes the same bytes every time.
    static let mixedImages = [
        (1250, 800, 61), (1250, 800, 62), (2000, 1500, 63), (2000, 1500, 64), (4000, 3000, 65), (6000, 4000, 66),
        (8660, 5774, 67),
    ]
    /// The same load on the mixed corpus (results/server-budget/unbounded, budget and workers/).
    static let serverMixedArguments = [
        "--strategy", "data", "--render", "full", "--render-threads", "2", "--concurrency", "16", "--requests",
        "70", "--runs", "3",
    ]
    /// --workers at the largest count whose worst case stays under the budget: the 50-megapixel
    /// image's predicted cost (its bitmap alone 200 MB; about 231 MB with its body and answer) fits
    /// twice in 512 MiB, not three times.
    static let serverMixedWorkers = ["--workers", "2"]
    static let examplePackage = "Examples/AsyncHTTPClientLoader"
    static let exampleBench = "\(examplePackage)/.build/release/ahc-bench"
    static let exampleArguments = [
        "--strategy", "ahc-collect", "--strategy", "ahc-file", "--strategy", "data", "--strategy", "download",
        "--render", "none", "--render", "full", "--render", "thumbnail", "--render", "decode-then-resize",
        "--allocator", "system", "--allocator", "jemalloc", "--runs", "5",
    ]

    /// The steps that re-measure `study` and, for a study that stands alone with documents, regenerate them.
    package func steps(_ study: Study) -> [StudyStep] {
        switch study {
        case .all: return Study.measuredByAll.flatMap(measuredAndRecorded) + measuring(.documents)
        case .scenario: return measuredAndRecorded(.scenario) + measuring(.documents)
        case .documents: return measuring(.documents)
        default: return measuredAndRecorded(study)
        }
    }

    /// A study's steps, then its entry in results/provenance.json: which build measured it.
    private func measuredAndRecorded(_ study: Study) -> [StudyStep] {
        let binary = study == .example ? Self.exampleBench : bench
        return measuring(study) + [
            .recordProvenance(study: study.rawValue, binary: binary, checkoutOf: bench, folder: results)
        ]
    }

    private var benchEnvironment: [String: String] { ["BENCH": bench] }

    private func resultsPath(_ name: String) -> String { "\(results)/\(name)" }

    /// The steps that measure `study` into results/, without regenerating the documents.
    private func measuring(_ study: Study) -> [StudyStep] {
        switch study {
        case .matrix:
            return [.run([bench, "run"] + Self.matrixArguments + ["--out", results, "--replace"])]
        case .sweep:
            let folder = "\(scratchPrefix)-sweep"
            return [
                .run([bench, "sweep", "--out", folder, "--replace"]),
                .copy(from: "\(folder)/sweep.csv", to: resultsPath("sweep.csv")),
            ]
        case .coldWarm:
            return [.run(["bash", "scripts/cold-warm.sh", resultsPath("cold-warm")], environment: benchEnvironment)]
        case .corpus:
            return [
                corpusPhotos,
                .run(
                    [bench, "corpus", corpusImages] + Self.corpusArguments
                        + ["--render", "full", "--render", "thumbnail", "--render", "stream"]
                        + ["--out", resultsPath("corpus"), "--replace"]
                ),
                .run(["bash", "scripts/corpus-plots.sh", resultsPath("corpus")]),
            ]
        case .jobs: return jobs
        case .encodings:
            return [.run(["python3", "scripts/encodings.py", "--bench", bench, "--out", results])]
        case .decodeTime:
            return [
                .run(["bash", "scripts/decode-time.sh", resultsPath("decode-time.csv")], environment: benchEnvironment)
            ]
        case .example:
            return [
                .run([swift, "build", "-c", "release", "--package-path", Self.examplePackage]),
                .run(
                    [Self.exampleBench, "run"] + Self.exampleArguments
                        + ["--out", resultsPath("example"), "--replace"]
                ),
            ]
        case .scenario: return scenario
        case .holders:
            return [
                .run([bench, "run"] + Self.holdersArguments + ["--out", resultsPath("holders"), "--replace"]),
                // The report reads trials.json and holders.csv; the 480 runs' timeline (30 MB) is not committed.
                .remove(resultsPath("holders/timeline.csv")),
            ]
        case .residencyCost:
            return [.run(["python3", "scripts/residency-cost.py", "--bench", bench, "--out", results])]
        case .server:
            // 3: some run failed; its row says why, and the figures count the runs that did not.
            let server = [bench, "scenario", "image-server"]
            return [
                .run(server + Self.serverArguments + ["--out", resultsPath("server"), "--replace"], tolerated: [3]),
                .run(
                    server + Self.server64Arguments + ["--out", resultsPath("server-64"), "--replace"],
                    tolerated: [3]
                ),
                .makeFolder(resultsPath("server-cost")),
                .run(
                    server + Self.serverCostArguments + ["--out", resultsPath("server-cost/counted"), "--replace"],
                    tolerated: [3]
                ),
                // Uncounted is the bare server: no exact heap and no residency snapshots.
                .run(
                    server + Self.serverCostArguments + ["--no-exact-heap", "--residency", "off"]
                        + ["--out", resultsPath("server-cost/uncounted"), "--replace"],
                    tolerated: [3]
                ),
                .run(
                    server + Self.serverResidencyArguments + ["--out", resultsPath("server-residency"), "--replace"],
                    tolerated: [3]
                ),
            ]
        case .serverBudget: return serverBudget
        case .overhead:
            return [
                .run(
                    ["bash", "scripts/overhead.sh", resultsPath("overhead"), "2"],
                    environment: ["SCRATCH": "\(scratchPrefix)-overhead", "BENCH": bench]
                )
            ]
        case .validation:
            return [.run(["python3", "scripts/validate.py", "--bench", bench, "--out", results])]
        case .holdersValidation:
            return [
                .run(["python3", "scripts/validate-holders.py", "--bench", bench, "--out", resultsPath("holders")])
            ]
        case .documents:
            return [
                .run(
                    ["bash", "scripts/plots.sh", results],
                    environment: ["DOCUMENTS": documents.joined(separator: " "), "BENCH": bench]
                )
            ]
        case .all: return []
        }
    }

    /// The bound at C = 16 and 64, then the mixed corpus (made in a scratch folder) under the same
    /// load three ways: nothing, --workers, the budget.
    private var serverBudget: [StudyStep] {
        let server = [bench, "scenario", "image-server"]
        let images = "\(scratchPrefix)-mixed-images"
        let folder = resultsPath("server-budget")
        let fixtures: [StudyStep] = Self.mixedImages.map { width, height, seed in
            .run([
                bench, "fixture", "--width", String(width), "--height", String(height), "--seed", String(seed),
                "--out", images,
            ])
        }
        let mixed = server + Self.serverMixedArguments + ["--images", images]
        return [.remove(images), .makeFolder(images), .makeFolder(folder)] + fixtures + [
            .run(
                server + Self.serverBoundArguments + Self.serverBudgetArguments
                    + ["--out", "\(folder)/bound", "--replace"],
                tolerated: [3]
            ),
            .run(mixed + ["--out", "\(folder)/unbounded", "--replace"], tolerated: [3]),
            .run(mixed + Self.serverMixedWorkers + ["--out", "\(folder)/workers", "--replace"], tolerated: [3]),
            .run(mixed + Self.serverBudgetArguments + ["--out", "\(folder)/budget", "--replace"], tolerated: [3]),
        ]
    }

    private var corpusPhotos: StudyStep {
        .run(["bash", "scripts/corpus-photos.sh", corpusImages], environment: benchEnvironment)
    }

    /// Serial against --jobs 2, alternating (the matrix 3 times each, the example corpus twice); the run
    /// folders stay in the scratch folder.
    private var jobs: [StudyStep] {
        let folder = "\(scratchPrefix)-jobs"
        return [
            corpusPhotos,
            .remove(folder),
            .makeFolder(resultsPath("jobs")),
            .run(
                ["bash", "scripts/jobs-timing.sh", folder, "matrix", "3", "run"] + Self.matrixArguments,
                environment: benchEnvironment
            ),
            .run(
                ["bash", "scripts/jobs-timing.sh", folder, "corpus", "2", "corpus", corpusImages]
                    + Self.corpusArguments,
                environment: benchEnvironment
            ),
            .copy(from: "\(folder)/timings.csv", to: resultsPath("jobs/timings.csv")),
            .run(
                [
                    bench, "compare", "\(folder)/matrix-j1-1/trials.json", "\(folder)/matrix-j2-1/trials.json",
                    "--thresholds", resultsPath("thresholds.json"), "--format", "markdown",
                ],
                // 2: a regression found, 3: runs missing on a side; both are what the comparison reports.
                tolerated: [2, 3],
                output: resultsPath("jobs/compare-matrix.md")
            ),
        ]
    }

    /// The caps (results/list-scroll.csv), memory budgets of 100/200/400 MiB, server faults on every 4th
    /// row with and without retries, and scroll speeds of 5-40 rows a second (results/list-scroll-*.csv).
    /// Each file is measured whole into the scratch folder and copied over the committed one only when all
    /// four are done. A row killed by its memory limit, or failed by its fault, is a row of the data:
    /// there, bench's status 3 (some runs failed) does not stop the study.
    private var scenario: [StudyStep] {
        let folder = "\(scratchPrefix)-scenario"
        let scroll = [bench, "scenario", "list-scroll", "--rows", "60", "--visible", "8", "--bandwidth", "10M"]
        let failedRunsAreData: Set<Int32> = [3]
        var steps: [StudyStep] = [
            .remove(folder), .makeFolder(folder),
            .run([bench, "scenario", "list-scroll"] + Self.scenarioCapArguments + ["--out", "\(folder)/caps"]),
        ]
        for limit in ["100Mi", "200Mi", "400Mi"] {
            steps.append(
                .run(
                    scroll + [
                        "--strategy", "data,download", "--render", "full,thumbnail", "--max-concurrent", "4",
                        "--speed", "20", "--memory-limit", limit, "--out", "\(folder)/memory-limit",
                    ],
                    tolerated: failedRunsAreData
                )
            )
        }
        let thumbnails =
            scroll + [
                "--strategy", "download", "--render", "thumbnail", "--max-concurrent", "4", "--speed", "20",
            ]
        for retries in ["0", "2"] {
            steps.append(.run(thumbnails + ["--retries", retries, "--out", "\(folder)/faults"]))
            for fault in ["truncate", "reset", "status-503"] {
                steps.append(
                    .run(
                        thumbnails + [
                            "--fault", fault, "--fault-every", "4", "--retries", retries, "--out", "\(folder)/faults",
                        ],
                        tolerated: failedRunsAreData
                    )
                )
            }
        }
        for speed in ["5", "10", "20", "40"] {
            steps.append(
                .run(
                    scroll + [
                        "--strategy", "download,data", "--render", "thumbnail", "--max-concurrent", "4", "--speed",
                        speed, "--out", "\(folder)/speed",
                    ]
                )
            )
        }
        for (measured, committed) in [
            ("caps", "list-scroll.csv"), ("memory-limit", "list-scroll-memory-limit.csv"),
            ("faults", "list-scroll-faults.csv"), ("speed", "list-scroll-speed.csv"),
        ] {
            steps.append(.copy(from: "\(folder)/\(measured)/list-scroll.csv", to: resultsPath(committed)))
        }
        return steps
    }
}

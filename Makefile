# The two commands a new machine needs: `make bench` and `make test`.
# A user's runs go into runs/<UTC time>/ (gitignored; runs/latest is the newest). results/ is the
# committed reference that the tests read: only `make reference` writes it.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results
RUNS ?= runs
BENCH ?= .build/release/bench
comma := ,
# This repository's maintainer tool: re-measures the committed reference (results/) and its documents.
BENCH_REFERENCE ?= .build/release/bench-reference
# Every `swift test` here builds the suite optimized, on the release build `make bench` measures with (the
# tests reach what they check through `package` access, so no module is rebuilt for testing): the `bench`
# children the tests start are the measured binary, and a debug build's start-up (swift-argument-parser
# checks its whole command tree in debug builds) does not cost every child.
TEST_BUILD = -c release --disable-testable-imports

.PHONY: setup build check-shape format fuzz fuzz-smoke sanitize bench run-bench sweep scenario encodings decode-time corpus corpus-scale plots reference test test-slow test-repeat gate baseline benchmarks clean \
	example-build example-test

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release

# measure COMMAND: runs `bench COMMAND` and says where its new folder is (also when some runs failed or
# it was interrupted); keeps bench's exit status. bench writes the folder's environment.txt itself.
define measure
	@echo "$(BENCH) $(1)"; before=$$(readlink $(RUNS)/latest 2>/dev/null); status=0; \
	$(BENCH) $(1) || status=$$?; \
	after=$$(readlink $(RUNS)/latest 2>/dev/null); \
	if [ -n "$$after" ] && [ "$$after" != "$$before" ]; then \
	  echo "make: results in $(RUNS)/$$after ($(RUNS)/latest)$(2)"; \
	fi; exit $$status
endef

# The default benchmark: the article's four cases, both allocators, 5 runs each, into a new runs/<UTC time>/.
bench: build
	@$(MAKE) --no-print-directory run-bench

# The measurement of `make bench` without the build (make plots calls it after its own build).
run-bench:
	$(call measure,run $(BENCH_ARGS),; charts: make plots)

# Peak memory against payload size (1-32 MB fixtures), every strategy, fetch only, into a new runs/<UTC time>/.
sweep: build
	$(call measure,sweep $(SWEEP_ARGS),)

# The scrolling list: peak memory by cap on requests in progress, data vs download, full vs thumbnail.
SCENARIO_ARGS ?= --strategy data$(comma)download --render full$(comma)thumbnail --max-concurrent 1$(comma)2$(comma)4$(comma)6$(comma)8$(comma)16 \
	--rows 60 --visible 8 --speed 20 --bandwidth 10M --runs 3
scenario: build
	$(call measure,scenario list-scroll $(SCENARIO_ARGS),)

# A folder of your images (CORPUS=path), or by default the example corpus (scripts/corpus-photos.sh:
# Debian's mate-backgrounds photographs and generated JPEGs), into a new runs/<UTC time>/ with its chart.
CORPUS_IMAGES ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/image-memory-bench/corpus
CORPUS ?= $(CORPUS_IMAGES)
CORPUS_ARGS ?= --runs 3
corpus: build
	@if [ "$(CORPUS)" = "$(CORPUS_IMAGES)" ]; then BENCH=$(BENCH) bash scripts/corpus-photos.sh $(CORPUS_IMAGES); fi
	$(call measure,corpus $(CORPUS) $(CORPUS_ARGS),)
	bash scripts/corpus-plots.sh $(RUNS)/$$(readlink $(RUNS)/latest)

# The corpus scale benchmark into results/scale/, against its targets: a 10,000-row corpus of one tiny
# JPEG (parent CPU per 1,000 rows flat) and 50,000 files that are not images (under 30 s).
# ROWS=, NONIMAGES=, LABEL= (before/after) and BENCH= choose what is measured.
corpus-scale: build
	BENCH=$(BENCH) bash scripts/corpus-scale.sh

# What the encoding costs: the same picture in every encoding, full, thumbnail and stream, both allocators, 3 runs each
# (fresh children, download strategy), and vipsthumbnail beside it; writes runs/encodings/encodings.csv, with
# encodings-holders.csv and encodings-residency.csv beside it (ENCODINGS_OUT).
ENCODINGS_OUT ?= $(RUNS)/encodings
encodings: build
	python3 scripts/encodings.py --bench $(BENCH) --out $(ENCODINGS_OUT) $(ENCODINGS_ARGS)

# The stream renderer's time against the thumbnail renderer's on the 6000x4000 fixtures (JPEG baseline
# 4:2:0 and 4:4:4, progressive 4:2:0 and 4:4:4, restart markers every row, PNG interlaced): decode by
# decode in pairs, CPU time of the decoding thread (scripts/decode-time.sh, a few minutes), into
# runs/decode-time.csv (DECODE_TIME_OUT); then perf's profile of the stream renderer by stage into
# decode-stages.csv beside it. make reference writes results/'s.
DECODE_TIME_OUT ?= $(RUNS)/decode-time.csv
decode-time: build
	mkdir -p $(dir $(DECODE_TIME_OUT))
	BENCH=$(BENCH) bash scripts/decode-time.sh $(DECODE_TIME_OUT)

# Charts (SVG and PNG in <run>/charts) and <run>/REPORT.md's tables, for the latest run that has a
# trials.csv (or an image server's server.csv: its chart); measures one first (make bench) when there is none. Never writes results/. Fails if gnuplot warns.
plots: build
	@run=$$(bash scripts/latest-run.sh $(RUNS)); \
	if [ -z "$$run" ]; then \
	  echo "make plots: no run with a trials.csv in $(RUNS)/ yet: measuring one first (make bench)"; \
	  $(MAKE) --no-print-directory run-bench; run=$$(bash scripts/latest-run.sh $(RUNS)); \
	fi; \
	if [ -z "$$run" ]; then echo "make plots: still no run with a trials.csv in $(RUNS)/" >&2; exit 66; fi; \
	BENCH=$(BENCH) bash scripts/plots.sh "$$run"

# Re-measures the committed reference in results/ (over an hour; `bench-reference measure all`: every study,
# then the charts and the documents' figures), then the tests of what they say. Review and commit the changes.
# One study alone: .build/release/bench-reference measure STUDY (--dry-run prints its steps; `bench-reference
# measure --help` lists the studies, among them overhead and the two validations against heaptrack).
reference: build
	$(BENCH_REFERENCE) measure all --results $(RESULTS) --bench $(BENCH)
	@# The re-measured reference and the regenerated documents, checked by the tests that read them.
	$(SWIFT) test $(TEST_BUILD) --no-parallel --filter ReferenceTests

# The example package (a user's package measuring its own loader through the ImageMemoryBench library);
# its first build takes minutes (AsyncHTTPClient, swift-nio-ssl's BoringSSL). `bench-reference measure
# example` measures it into results/example/.
EXAMPLE ?= Examples/AsyncHTTPClientLoader

example-build: setup
	$(SWIFT) build -c release --package-path $(EXAMPLE)

# Builds the example package and checks its rows (HarnessTests/ExampleLoaderTests); .ci/run calls it.
example-test: setup
	BENCH_EXAMPLE=1 $(SWIFT) test $(TEST_BUILD) --no-parallel --filter ExampleLoaderTests

# libFuzzer, long (minutes to hours; not in CI): the image header inspectors and the result-file readers
# (Sources/BenchFuzz, scripts/fuzz.sh) for FUZZ_SECONDS (default 120), then the stream JPEG decoder and
# its differential target against libjpeg-turbo's coefficients (scripts/fuzz/, scripts/fuzz-jpeg.sh), FUZZ_RUNS
# inputs each (default 1,000,000). Scratch in .build-fuzz; crashers in .build-fuzz/crashes/<UTC time>/
# and .build-fuzz/jpeg/findings/<UTC time>/.
FUZZ_SECONDS ?= 120
FUZZ_RUNS ?= 1000000
fuzz: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash scripts/fuzz.sh
	FUZZ_RUNS=$(FUZZ_RUNS) bash scripts/fuzz-jpeg.sh

# The stream JPEG decoder's two fuzz targets for 10,000 inputs each (a minute or two): a smoke test
# of the harness and the seeds, runnable anywhere.
fuzz-smoke: setup
	FUZZ_RUNS=10000 bash scripts/fuzz-jpeg.sh

# The stream renderer's C code (CStreamJPEG, CResample, CPNGCodec, CWebPCodec) under AddressSanitizer and
# UndefinedBehaviorSanitizer over fixtures made here and the fuzz corpus when there is one, and four threads
# decoding at once under ThreadSanitizer (scripts/sanitize.sh; a few minutes; CI runs it).
sanitize: setup
	bash scripts/sanitize.sh

# The package's shape (scripts/check-shape.sh): declared imports, no product reaching the maintainers'
# targets, README's module graph, links, `public` only for the library's API, the DocC catalog built
# with warnings as errors, and no API break of ImageMemoryBench against the previous commit.
check-shape: setup
	SWIFT=$(SWIFT) bash scripts/check-shape.sh

# Rewrites every Swift file as swift format writes it (.swift-format), and every C file as clang-format
# writes it (.clang-format); make check-shape fails on any that is not.
format: setup
	$(SWIFT) format format --in-place --parallel --recursive $$(cat scripts/swift-format-paths)
	clang-format -i $$(git ls-files '*.c' '*.h')

# The tests that read this test process's own RSS or heap, which tests running beside them would
# disturb, run alone after the rest, which run in parallel (scripts/test-suite.sh: both halves, in a
# TMPDIR of their own that must be empty afterwards).
OWN_MEMORY_TESTS = ProbeTests\.|SharedRequestsTests|CostLimitedCacheTests|LoopbackServerTests\.|ProbeCalibrationTests
export OWN_MEMORY_TESTS
# The slow tier, which `make test` skips and `make test-slow` runs (CI runs both): the image server's load
# tests in real children (its routes, faults and slopes under load; wrk against --listen), the gate's
# known answer (20 real trials decoding the 6000 x 4000 fixture) and the hung server's rows (URLSession's
# own 60 s), each many seconds.
SLOW_TESTS = ImageServerChildTests|ListenTests|GateKnownAnswerTests|aHungServerIsATimeoutThatSaysHowLong
export SLOW_TESTS
test: setup
	SWIFT=$(SWIFT) bash scripts/test-suite.sh

test-slow: setup
	SWIFT=$(SWIFT) TIER=slow bash scripts/test-suite.sh

# The suite N times (default 10), both halves each time, every failure reported with its test and run:
# how a flaky test is found. FILTER=REGEX narrows it (scripts/test-repeat.sh).
N ?= 10
test-repeat: setup
	SWIFT=$(SWIFT) N=$(N) FILTER='$(FILTER)' bash scripts/test-repeat.sh

# The memory gate (see results/README.md): the article's four cases, both allocators, a few runs,
# compared with the committed baseline. scripts/gate.sh exits 2 regression, 3 failed or missing runs,
# 5 no baseline (make itself reports any failure as 2; call the script for the distinct status).
gate: build
	bash scripts/gate.sh

# Re-measure the gate's reference on this machine; review and commit results/baseline.json.
baseline: build
	bash scripts/gate.sh baseline

# package-benchmark on the building blocks, checked against Benchmarks/Thresholds (see Benchmarks/README.md).
benchmarks: setup
	cd Benchmarks && $(SWIFT) package benchmark thresholds check --path Thresholds

clean:
	rm -rf .build

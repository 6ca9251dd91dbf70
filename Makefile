# The two commands a new machine needs: `make bench` and `make test`.
# A user's runs go into runs/<UTC time>/ (gitignored; runs/latest is the newest). results/ is the
# committed reference that the tests read: only `make reference` writes it.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results
RUNS ?= runs
BENCH ?= .build/release/bench
comma := ,
# The documents whose marked figures come from results/ (bench-reference --document): README.md and the manual.
DOCUMENTS := README.md $(sort $(wildcard docs/*.md))
# Every `swift test` here builds the suite optimized, on the release build `make bench` measures with (the
# tests reach what they check through `package` access, so no module is rebuilt for testing): the `bench`
# children the tests start are the measured binary, and a debug build's start-up (swift-argument-parser
# checks its whole command tree in debug builds) does not cost every child.
TEST_BUILD = -c release --disable-testable-imports

.PHONY: setup build check-shape format fuzz fuzz-smoke bench run-bench sweep scenario scenario-reference encodings progressive-time corpus corpus-reference corpus-scale jobs-reference overhead-reference holders-reference plots reference test validate validate-holders gate baseline benchmarks clean \
	example-build example example-test

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

# The committed list-scroll reference (about 15 minutes), as results/SCENARIO.md states it: the caps
# (make scenario's settings, results/scenario.csv), memory budgets of 100/200/400 MiB, server faults on every
# 4th row with and without retries, and scroll speeds of 5-40 rows a second (results/scenario-*.csv); then
# SCENARIO.md's figures regenerated (bench report). Each file is measured whole into $(SCENARIO_SCRATCH) and
# copied over the committed one only when all four are done. A run killed by its memory limit, or a row
# failed by its fault, is a row of the data: there, bench's status 3 (some runs failed) does not stop the target.
SCENARIO_SCRATCH ?= /tmp/image-memory-bench-scenario
# A folder belongs to one command: the sweep is measured in its own, and its sweep.csv joins results/.
SWEEP_SCRATCH ?= /tmp/image-memory-bench-sweep
SCENARIO_SCROLL = $(BENCH) scenario list-scroll --rows 60 --visible 8 --bandwidth 10M
define scenario_tolerating_failed_runs
$(1); status=$$?; if [ $$status -ne 0 ] && [ $$status -ne 3 ]; then exit $$status; fi
endef
scenario-reference: build
	rm -rf $(SCENARIO_SCRATCH) && mkdir -p $(SCENARIO_SCRATCH)
	$(BENCH) scenario list-scroll $(SCENARIO_ARGS) --out $(SCENARIO_SCRATCH)/caps
	for limit in 100Mi 200Mi 400Mi; do \
	  $(call scenario_tolerating_failed_runs,$(SCENARIO_SCROLL) --strategy data$(comma)download --render full$(comma)thumbnail --max-concurrent 4 --speed 20 --memory-limit $$limit --out $(SCENARIO_SCRATCH)/memory-limit); \
	done
	for retries in 0 2; do \
	  $(SCENARIO_SCROLL) --strategy download --render thumbnail --max-concurrent 4 --speed 20 --retries $$retries --out $(SCENARIO_SCRATCH)/faults || exit; \
	  for fault in truncate reset status-503; do \
	    $(call scenario_tolerating_failed_runs,$(SCENARIO_SCROLL) --strategy download --render thumbnail --max-concurrent 4 --speed 20 --fault $$fault --fault-every 4 --retries $$retries --out $(SCENARIO_SCRATCH)/faults); \
	  done; \
	done
	for speed in 5 10 20 40; do \
	  $(SCENARIO_SCROLL) --strategy download$(comma)data --render thumbnail --max-concurrent 4 --speed $$speed --out $(SCENARIO_SCRATCH)/speed || exit; \
	done
	cp $(SCENARIO_SCRATCH)/caps/scenario.csv $(RESULTS)/scenario.csv
	cp $(SCENARIO_SCRATCH)/memory-limit/scenario.csv $(RESULTS)/scenario-memory-limit.csv
	cp $(SCENARIO_SCRATCH)/faults/scenario.csv $(RESULTS)/scenario-faults.csv
	cp $(SCENARIO_SCRATCH)/speed/scenario.csv $(RESULTS)/scenario-speed.csv
	DOCUMENTS="$(DOCUMENTS)" BENCH=$(BENCH) bash scripts/plots.sh $(RESULTS)

# Where a trial's wall time goes and the settle's evidence (results/overhead/, REPORT.md's "The settle"):
# the full matrix with the settle as a fixed 50 ms pause and with the settle rule, serial and --jobs 2,
# twice each, alternating (about 10 minutes); the run folders stay in $(OVERHEAD_SCRATCH).
OVERHEAD_SCRATCH ?= /tmp/image-memory-bench-overhead
overhead-reference: build
	SCRATCH=$(OVERHEAD_SCRATCH) BENCH=$(BENCH) bash scripts/overhead.sh $(RESULTS)/overhead 2

# Who holds the peak (results/holders/): the article's strategies with async-data and contents-of, every
# built-in renderer, both allocators, 20 runs a cell, so that a cell's rare high runs (a race between
# FoundationNetworking freeing its buffer and the decode starting) are caught and explained (REPORT.md).
HOLDERS_ARGS ?= --strategy data --strategy download --strategy async-data --strategy contents-of \
	--render none --render full --render thumbnail --allocator system --allocator jemalloc --runs 20
holders-reference: build
	$(BENCH) run $(HOLDERS_ARGS) --out $(RESULTS)/holders --replace
	@# The report reads trials.json and holders.csv; the 480 runs' timeline (30 MB) is not committed.
	rm -f $(RESULTS)/holders/timeline.csv

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

# The committed example corpus run (results/corpus/: full, thumbnail and stream) and its chart; serial, as every
# committed figure.
corpus-reference: build
	BENCH=$(BENCH) bash scripts/corpus-photos.sh $(CORPUS_IMAGES)
	$(BENCH) corpus $(CORPUS_IMAGES) $(CORPUS_ARGS) --render full --render thumbnail --render stream --out $(RESULTS)/corpus --replace
	bash scripts/corpus-plots.sh $(RESULTS)/corpus

# Wall time serial against --jobs 2 (alternating: the matrix 3 times each, the example corpus twice), and
# bench compare of the two matrices (results/jobs/; the run folders stay in $(JOBS_SCRATCH), not committed).
JOBS_SCRATCH ?= /tmp/image-memory-bench-jobs
jobs-reference: build
	BENCH=$(BENCH) bash scripts/corpus-photos.sh $(CORPUS_IMAGES)
	rm -rf $(JOBS_SCRATCH) && mkdir -p $(RESULTS)/jobs
	BENCH=$(BENCH) bash scripts/jobs-timing.sh $(JOBS_SCRATCH) matrix 3 run --strategy all --render none --render full --render thumbnail --runs 5
	BENCH=$(BENCH) bash scripts/jobs-timing.sh $(JOBS_SCRATCH) corpus 2 corpus $(CORPUS_IMAGES) $(CORPUS_ARGS)
	cp $(JOBS_SCRATCH)/timings.csv $(RESULTS)/jobs/timings.csv
	$(BENCH) compare $(JOBS_SCRATCH)/matrix-j1-1/trials.json $(JOBS_SCRATCH)/matrix-j2-1/trials.json --thresholds $(RESULTS)/thresholds.json --format markdown \
	  > $(RESULTS)/jobs/compare-matrix.md || true

# What the encoding costs: the same picture in every encoding, full, thumbnail and stream, both allocators, 3 runs each
# (fresh children, download strategy), and vipsthumbnail beside it; writes runs/encodings/encodings.csv, with
# encodings-holders.csv and encodings-residency.csv beside it (ENCODINGS_OUT).
ENCODINGS_OUT ?= $(RUNS)/encodings
encodings: build
	python3 scripts/encodings.py --bench $(BENCH) --out $(ENCODINGS_OUT) $(ENCODINGS_ARGS)

# The stream renderer's time target: package-benchmark's progressive-stream against progressive-thumbnail
# (Benchmarks/, one run, 7 iterations each after a warm-up; the first build takes minutes), their wall-clock
# samples into runs/progressive-time.csv (PROGRESSIVE_TIME_OUT). make reference writes results/'s.
PROGRESSIVE_TIME_OUT ?= $(RUNS)/progressive-time.csv
progressive-time: setup
	mkdir -p $(dir $(PROGRESSIVE_TIME_OUT))
	SWIFT=$(SWIFT) bash scripts/progressive-time.sh $(PROGRESSIVE_TIME_OUT)

# Charts (SVG and PNG in <run>/charts) and <run>/REPORT.md's tables, for the latest run that has a
# trials.csv; measures one first (make bench) when there is none. Never writes results/. Fails if gnuplot warns.
plots: build
	@run=$$(bash scripts/latest-run.sh $(RUNS)); \
	if [ -z "$$run" ]; then \
	  echo "make plots: no run with a trials.csv in $(RUNS)/ yet: measuring one first (make bench)"; \
	  $(MAKE) --no-print-directory run-bench; run=$$(bash scripts/latest-run.sh $(RUNS)); \
	fi; \
	if [ -z "$$run" ]; then echo "make plots: still no run with a trials.csv in $(RUNS)/" >&2; exit 66; fi; \
	BENCH=$(BENCH) bash scripts/plots.sh "$$run"

# Re-measures the committed reference in results/ (over an hour): the full matrix, the sweep,
# the cold/warm runs, the example corpus, serial against --jobs 2 timings, the encodings and the progressive
# decode times, the example
# package, the scrolling list, then the charts and the documents' figures
# (results/REPORT.md, results/SCENARIO.md, README.md and docs/), then the tests of what they say.
# Review and commit the changes. --replace: re-measuring the committed files is the point here
# (bench refuses to overwrite an earlier run's rows otherwise).
reference: build
	$(BENCH) run --strategy all --render none --render full --render thumbnail --runs 5 --out $(RESULTS) --replace
	$(BENCH) sweep --out $(SWEEP_SCRATCH) --replace
	cp $(SWEEP_SCRATCH)/sweep.csv $(RESULTS)/sweep.csv
	BENCH=$(BENCH) bash scripts/cold-warm.sh $(RESULTS)/cold-warm
	@$(MAKE) --no-print-directory corpus-reference jobs-reference
	python3 scripts/encodings.py --bench $(BENCH) --out $(RESULTS)
	SWIFT=$(SWIFT) bash scripts/progressive-time.sh $(RESULTS)/progressive-time.csv
	@$(MAKE) --no-print-directory example scenario-reference holders-reference
	DOCUMENTS="$(DOCUMENTS)" BENCH=$(BENCH) bash scripts/plots.sh $(RESULTS)
	@# The re-measured reference and the regenerated documents, checked by the tests that read them.
	$(SWIFT) test $(TEST_BUILD) --no-parallel --filter ReferenceTests

# A user's package measuring its own loader through the ImageMemoryBench library: AsyncHTTPClient's
# collected body and FileDownloadDelegate against URLSession's data and download tasks, the
# built-in renderers and the example's own (decode-then-resize), both allocators, measured by the example's own executable into results/example/ (part of make reference).
# Its first build takes minutes (AsyncHTTPClient, swift-nio-ssl's BoringSSL).
EXAMPLE ?= Examples/AsyncHTTPClientLoader
EXAMPLE_BENCH ?= $(EXAMPLE)/.build/release/ahc-bench
EXAMPLE_ARGS ?= --strategy ahc-collect --strategy ahc-file --strategy data --strategy download \
	--render none --render full --render thumbnail --render decode-then-resize \
	--allocator system --allocator jemalloc --runs 5

example-build: setup
	$(SWIFT) build -c release --package-path $(EXAMPLE)

example: example-build
	$(EXAMPLE_BENCH) run $(EXAMPLE_ARGS) --out $(RESULTS)/example --replace

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

# The package's shape (scripts/check-shape.sh): declared imports, no product reaching the maintainers'
# targets, README's module graph, links, `public` only for the library's API, the DocC catalog built
# with warnings as errors, and no API break of ImageMemoryBench against the previous commit.
check-shape: setup
	SWIFT=$(SWIFT) bash scripts/check-shape.sh

# Rewrites every Swift file as swift format writes it (.swift-format); make check-shape fails on any that is not.
format:
	$(SWIFT) format format --in-place --parallel --recursive $$(cat scripts/swift-format-paths)

# The tests that read this test process's own RSS or heap, which tests running beside them would
# disturb, run alone after the rest, which run in parallel.
OWN_MEMORY_TESTS = ProbeTests\.|SharedRequestsTests|CostLimitedCacheTests|LoopbackServerTests\.|ProbeCalibrationTests
test: setup
	$(SWIFT) test $(TEST_BUILD) --parallel --skip '$(OWN_MEMORY_TESTS)'
	$(SWIFT) test $(TEST_BUILD) --no-parallel --skip-build --filter '$(OWN_MEMORY_TESTS)'

# Who holds the peak against heaptrack's peak consumers, the article's four cases (results/holders/validation.md).
validate-holders: build
	@command -v heaptrack >/dev/null || { echo "validate-holders: apt-get install heaptrack" >&2; exit 69; }
	python3 scripts/validate-holders.py --bench $(BENCH) --out $(RESULTS)/holders

# Our heap and RSS peaks against heaptrack, valgrind massif and /usr/bin/time -v (results/validation.md).
# Needs: apt-get install heaptrack valgrind time
validate: build
	python3 scripts/validate.py --bench $(BENCH) --out $(RESULTS)

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

# The two commands a new machine needs: `make bench` and `make test`.
# A user's runs go into runs/<UTC time>/ (gitignored; runs/latest is the newest). results/ is the
# committed reference that the tests read: only `make reference` writes it.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results
RUNS ?= runs
BENCH ?= .build/release/bench
comma := ,

.PHONY: setup build bench run-bench sweep scenario encodings plots reference test validate gate baseline benchmarks clean \
	example-build example example-test

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release

# measure COMMAND: runs `bench COMMAND`, then saves scripts/environment.sh's output into the run's new
# folder and says where it is (also when some runs failed or it was interrupted); keeps bench's exit status.
define measure
	@echo "$(BENCH) $(1)"; before=$$(readlink $(RUNS)/latest 2>/dev/null); status=0; \
	$(BENCH) $(1) || status=$$?; \
	after=$$(readlink $(RUNS)/latest 2>/dev/null); \
	if [ -n "$$after" ] && [ "$$after" != "$$before" ]; then \
	  bash scripts/environment.sh > "$(RUNS)/$$after/environment.txt"; \
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

# What the encoding costs: the same picture in every encoding, full and thumbnail, both allocators, 3 runs each
# (fresh children, download strategy), and vipsthumbnail beside it; writes runs/encodings/encodings.csv (ENCODINGS_OUT).
ENCODINGS_OUT ?= $(RUNS)/encodings
encodings: build
	python3 scripts/encodings.py --bench $(BENCH) --out $(ENCODINGS_OUT) $(ENCODINGS_ARGS)

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

# Re-measures the committed reference in results/ (a few minutes): the full matrix, the sweep,
# the environment, then the charts and results/REPORT.md's tables. Review and commit the changes.
reference: build
	$(BENCH) run --strategy all --render none --render full --render thumbnail --runs 5 --out $(RESULTS)
	$(BENCH) sweep --out $(RESULTS)
	BENCH=$(BENCH) bash scripts/cold-warm.sh $(RESULTS)/cold-warm
	python3 scripts/encodings.py --bench $(BENCH) --out $(RESULTS)
	@$(MAKE) --no-print-directory example
	@bash scripts/environment.sh > $(RESULTS)/environment.txt
	README=README.md BENCH=$(BENCH) bash scripts/plots.sh $(RESULTS)

# A user's package measuring its own loader through the ImageMemoryBench library: AsyncHTTPClient's
# collected body and FileDownloadDelegate against URLSession's data and download tasks, both
# allocators, measured by the example's own executable into results/example/ (part of make reference).
# Its first build takes minutes (AsyncHTTPClient, swift-nio-ssl's BoringSSL).
EXAMPLE ?= Examples/AsyncHTTPClientLoader
EXAMPLE_BENCH ?= $(EXAMPLE)/.build/release/ahc-bench
EXAMPLE_ARGS ?= --strategy ahc-collect --strategy ahc-file --strategy data --strategy download \
	--render none --render full --allocator system --allocator jemalloc --runs 5

example-build: setup
	$(SWIFT) build -c release --package-path $(EXAMPLE)

example: example-build
	$(EXAMPLE_BENCH) run $(EXAMPLE_ARGS) --out $(RESULTS)/example
	@bash scripts/environment.sh > $(RESULTS)/example/environment.txt

# Builds the example package and checks its rows (HarnessTests/ExampleLoaderTests); .ci/run calls it.
example-test: setup
	BENCH_EXAMPLE=1 $(SWIFT) test --no-parallel --filter ExampleLoaderTests

# Serial: the probe tests read this process's own RSS, which tests running beside them would disturb.
test: setup
	$(SWIFT) test --no-parallel

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

# The two commands a new machine needs: `make bench` and `make test`.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results

.PHONY: setup build bench test gate baseline benchmarks clean

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release

# The default benchmark: the article's four cases, both allocators, 5 runs each.
bench: build
	.build/release/bench run --out $(RESULTS) $(BENCH_ARGS)

# Serial: the probe tests read this process's own RSS, which tests running beside them would disturb.
test: setup
	$(SWIFT) test --no-parallel

# The memory gate (see results/README.md): the article's four cases, both allocators, a few runs,
# compared with the committed baseline. Exit 2 regression, 3 failed or missing runs, 5 no baseline.
GATE_MATRIX ?= --strategy data --strategy download --render none --render full
GATE_RUNS ?= 5
GATE_OUT ?= .build/gate
gate: build
	.build/release/bench run $(GATE_MATRIX) --runs $(GATE_RUNS) --out $(GATE_OUT)
	.build/release/bench compare $(RESULTS)/baseline.json $(GATE_OUT)/trials.json --thresholds $(RESULTS)/thresholds.json

# Re-measure the gate's reference on this machine; review and commit results/baseline.json.
BASELINE_RUNS ?= 10
baseline: build
	.build/release/bench baseline update $(GATE_MATRIX) --runs $(BASELINE_RUNS) --out $(GATE_OUT)/baseline-run --baseline $(RESULTS)/baseline.json

# package-benchmark on the building blocks, checked against Benchmarks/Thresholds (see Benchmarks/README.md).
benchmarks: setup
	cd Benchmarks && $(SWIFT) package benchmark thresholds check --path Thresholds

clean:
	rm -rf .build

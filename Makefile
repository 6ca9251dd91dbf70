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

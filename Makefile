# The two commands a new machine needs: `make bench` and `make test`.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results

.PHONY: setup build bench sweep scenario plots test validate gate baseline benchmarks clean

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release

# The default benchmark: the article's four cases, both allocators, 5 runs each.
bench: build
	.build/release/bench run --out $(RESULTS) $(BENCH_ARGS)
	@bash scripts/environment.sh > $(RESULTS)/environment.txt

# Peak memory against payload size (1-32 MB fixtures), every strategy, fetch only.
sweep: build
	.build/release/bench sweep --out $(RESULTS) $(SWEEP_ARGS)
	@bash scripts/environment.sh > $(RESULTS)/environment.txt

# The scrolling list: peak memory by cap on requests in progress, data vs download, full vs thumbnail.
SCENARIO_ARGS ?= --strategy data,download --render full,thumbnail --max-concurrent 1,2,4,6,8,16 \
	--rows 60 --visible 8 --speed 20 --bandwidth 10M --runs 3
scenario: build
	.build/release/bench scenario list-scroll --out $(RESULTS) $(SCENARIO_ARGS)

# Charts (SVG and PNG in results/charts) and REPORT.md's tables, from the CSVs in results/;
# measures first when they are missing. Fails if gnuplot warns.
plots: build
	@test -f $(RESULTS)/trials.csv || $(MAKE) bench
	@test -f $(RESULTS)/sweep.csv || $(MAKE) sweep
	BENCH=.build/release/bench bash scripts/plots.sh $(RESULTS)

# Serial: the probe tests read this process's own RSS, which tests running beside them would disturb.
test: setup
	$(SWIFT) test --no-parallel

# Our heap and RSS peaks against heaptrack, valgrind massif and /usr/bin/time -v (results/validation.md).
# Needs: apt-get install heaptrack valgrind time
validate: build
	python3 scripts/validate.py --bench .build/release/bench --out $(RESULTS)

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

# The two commands a new machine needs: `make bench` and `make test`.
SWIFT ?= swift
BENCH_ARGS ?=
RESULTS ?= results

.PHONY: setup build bench test validate clean

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

# Our heap and RSS peaks against heaptrack, valgrind massif and /usr/bin/time -v (results/validation.md).
# Needs: apt-get install heaptrack valgrind time
validate: build
	python3 scripts/validate.py --bench .build/release/bench --out $(RESULTS)

clean:
	rm -rf .build

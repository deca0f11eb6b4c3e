# Convenience front end over CMake. `make run` and `make test` are the README's two commands.
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
PREFIX ?= /usr/local

.PHONY: run install test test-long sanitize bench deps configure build clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default configuration.
run: build
	@$(BUILD)/lampsim run

# bin/lampsim and share/lampsim/ (plot_sweep.py for `lampsim report`, configs/, workloads/) under PREFIX.
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The full default test suite (long tests excluded: see test-long).
test: build
	@ctest --test-dir $(BUILD) -LE long --output-on-failure -j $(JOBS)

test-long: build
	@scripts/install-deps.sh --long
	@cmake -S . -B $(BUILD) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@ctest --test-dir $(BUILD) -L long --output-on-failure

# ASan + UBSan build running the whole default suite.
sanitize: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Sanitize >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(BUILD)-asan -LE long --output-on-failure -j $(JOBS)

bench: build
	@cmake --build $(BUILD) --target bench

clean:
	rm -rf $(BUILD) $(BUILD)-asan

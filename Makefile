# Convenience front end over CMake. `make run` and `make test` are the README's two commands.
# Each target checks only what it needs (scripts/install-deps.sh GROUP: build, test, bench, long);
# nothing is installed, and no root is asked for, when it is all present.
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
PREFIX ?= /usr/local

.PHONY: run install test test-long sanitize bench deps configure build tool clean

deps:
	@scripts/install-deps.sh build

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null

# The lampsim tool and liblampsim.so only (what `make run` and `make install` need).
tool: configure
	@cmake --build $(BUILD) -j $(JOBS) --target lampsim lampsim_shared

# Everything, the ~100 test programs included.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default configuration.
run: tool
	@$(BUILD)/lampsim run

# PREFIX/bin/lampsim, PREFIX/lib/liblampsim.so, PREFIX/share/lampsim/ (plot scripts, configs/,
# workloads/) and the Python package in PREFIX/lib/pythonX.Y/site-packages (python/CMakeLists.txt).
install: tool
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The full default test suite (long tests excluded: see test-long). Test-only dependencies that
# are missing are listed and the tests that need them skip.
test: deps
	@scripts/install-deps.sh --optional test
	@$(MAKE) build
	@ctest --test-dir $(BUILD) -LE long --output-on-failure -j $(JOBS)

test-long: deps
	@scripts/install-deps.sh test long
	@$(MAKE) build
	@ctest --test-dir $(BUILD) -L long --output-on-failure

# ASan + UBSan build running the whole default suite.
sanitize: deps
	@scripts/install-deps.sh --optional test
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Sanitize $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(BUILD)-asan -LE long --output-on-failure -j $(JOBS)

bench: deps
	@scripts/install-deps.sh --optional bench
	@$(MAKE) configure
	@cmake --build $(BUILD) -j $(JOBS) --target bench

clean:
	rm -rf $(BUILD) $(BUILD)-asan

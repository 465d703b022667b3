# The two commands of README.md: `make up` (run the service) and `make test`.
# Both create .venv with the first python3 >= 3.11 found and install this
# package into it, building the C engine; nothing else is needed.

PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: engine-missing up test test-fast test-newest-rq proto proto-check proto-release web stubs example-node example-go bench clean sanitize

up: $(BIN)/.installed
	$(BIN)/sudoku-server

# Three pytest processes, each taking a whole test file at a time (module
# fixtures start once): the fault, browser and restart tests mostly wait by
# design, so the others use the two cores meanwhile (on two cores: 4 min 52 s
# with three, 6 min 15 s with two). TEST_JOBS=0 runs them in this process.
TEST_JOBS ?= 3
test: $(BIN)/.installed-test
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile $(PYTEST_ARGS)

# The suite without the tests marked slow, which wait seconds by design (a
# quick check while working; `make test` is the whole suite, as CI runs it).
test-fast: $(BIN)/.installed-test
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

# The tests that check what we write in RQ's keys against RQ's own code
# (pytest -m rq: the job lifecycle, the enqueue, the results), run against
# the newest RQ release in a copy of .venv upgraded to it. pyproject.toml
# pins the RQ they pass with; this shows the day a new release writes its
# keys differently, not the day someone raises the pin. CI runs it.
NEWEST_RQ := .venv-newest-rq
test-newest-rq: $(BIN)/.installed-test
	rm -rf $(NEWEST_RQ)
	cp -a $(VENV) $(NEWEST_RQ)
	$(NEWEST_RQ)/bin/python -m pip install -q --upgrade rq
	@$(NEWEST_RQ)/bin/python -c 'import rq; print("test-newest-rq: RQ", rq.__version__)'
	$(NEWEST_RQ)/bin/python -m pytest -m rq $(PYTEST_ARGS)

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "error: Python 3.11 or newer is needed (python3 --version)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The C engine is built in place (sudoku/_engine*.so): when it is gone
# (`git clean -fdX`, a switch of branch), install again instead of trusting
# the stamp, so no test imports a missing or stale build.
ENGINE_BUILT := $(wildcard sudoku/_engine*.so)
engine-missing:
$(BIN)/.installed: $(BIN)/python pyproject.toml setup.py $(wildcard sudoku/csrc/* sudoku/csrc/logic/* sudoku/csrc/binding/*) $(if $(ENGINE_BUILT),,engine-missing)
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(BIN)/.installed-test: $(BIN)/python pyproject.toml setup.py $(wildcard sudoku/csrc/* sudoku/csrc/logic/* sudoku/csrc/binding/*) $(if $(ENGINE_BUILT),,engine-missing)
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@ $(BIN)/.installed

# Regenerates sudoku/v1 from proto/ (tests/test_proto.py fails until you do).
# The service config beside the proto is copied in too: the Python client
# reads it from the package.
proto: $(BIN)/.installed-test
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. proto/sudoku/v1/sudoku.proto
	cp proto/sudoku/v1/sudoku_grpc_service_config.json sudoku/v1/

# `buf lint` and `buf breaking` against the last released proto
# (api/released/README.md says what that is), with buf.yaml's rules. buf
# comes from the @bufbuild/buf npm package (its binary for this platform) at
# BUF_VERSION, installed into build/buf on first use; needs Node and npm.
BUF_VERSION := 1.75.0
BUF := build/buf/node_modules/.bin/buf
$(BUF):
	npm install --prefix build/buf --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
		@bufbuild/buf@$(BUF_VERSION)
	@test "$$($(BUF) --version)" = "$(BUF_VERSION)"

proto-check: $(BUF)
	$(BUF) lint
	$(BUF) breaking --against api/released
	@echo "proto-check: buf $(BUF_VERSION): lint and breaking (against api/released) passed"

# Records the proto as released: buf breaking compares with it from now on.
proto-release:
	cp proto/sudoku/v1/sudoku.proto api/released/sudoku/v1/sudoku.proto
	@echo "proto-release: api/released updated; remove buf.yaml's breaking.ignore_only entries, and commit both"

# Every client's stubs into gen/ with buf.gen.yaml, skipping (and naming) the
# plugins this machine lacks; the TypeScript plugin comes with `make web`.
stubs: $(BIN)/.installed-test $(BUF)
	$(BIN)/python tools/gen_stubs.py $(BUF)

# The Node quick start (docs/clients/typescript.md) run against a service of
# its own on free ports: examples/node/run.sh. Needs Node and npm.
example-node: $(BIN)/.installed
	examples/node/run.sh

# The Go quick start (docs/clients/go.md, grpc-go) built with Debian
# bookworm's Go and grpc-go, run against a service of its own on free ports:
# examples/go/run.sh. Needs the Debian packages it names.
example-go: $(BIN)/.installed $(BUF)
	BUF=$(CURDIR)/$(BUF) examples/go/run.sh

# The page's client code, service/http/static/api.js: @connectrpc/connect-web and
# @bufbuild/protobuf with the messages protoc-gen-es makes from the proto,
# bundled by esbuild, at the versions web/package-lock.json pins. Needs Node
# and npm; `make up` does not (the bundle is committed). Run it after changing
# the proto; tests/test_page.py fails while the committed bundle differs from
# what it makes. WEB_OUT=path writes the bundle elsewhere (the test does).
WEB_OUT ?= service/http/static/api.js
web: $(BIN)/.installed-test
	cd web && npm ci --no-audit --no-fund --loglevel=error
	rm -rf web/gen && mkdir -p web/gen
	$(BIN)/python -m grpc_tools.protoc -Iproto --plugin=protoc-gen-es=web/node_modules/.bin/protoc-gen-es \
		--es_out=web/gen --es_opt=target=js proto/sudoku/v1/sudoku.proto
	web/node_modules/.bin/esbuild web/src/api.js --bundle --format=esm --target=es2020 --minify \
		--log-level=warning --legal-comments=none --outfile=$(WEB_OUT) \
		--banner:js='// Made by `make web` from web/src/api.js; do not edit. Bundles @connectrpc/connect, @connectrpc/connect-web and @bufbuild/protobuf (Apache-2.0; versions in web/package-lock.json) with code generated from proto/sudoku/v1/sudoku.proto.'

# The engine tests against the C extension built with AddressSanitizer and
# UndefinedBehaviorSanitizer, under `python -X dev`. The build goes to
# build/sanitize/ (the normal one in sudoku/ is untouched) and is put first
# on sudoku.__path__ for this run only. Any report fails the run: ASan stops
# at its first error, UBSan too (-fno-sanitize-recover), and --capture=sys
# leaves their reports on stderr. Choices:
# - detect_leaks=0: CPython does not free everything at exit, by design, so
#   LeakSanitizer would report thousands of blocks that are not ours; a
#   suppressions file would have to cover all of CPython and every library
#   the tests load, and would then hide ours too.
# - PYTHONMALLOC=malloc: every Python object is an ASan allocation (inside
#   pymalloc's arenas an overrun would go unseen).
# - -fno-wrapv: Python's CFLAGS make signed overflow wrap, which turns UBSan's
#   check for it off; our C must not overflow, so check it.
# - allocator_may_return_null: tests asking for absurd sizes get MemoryError.
SANITIZE := $(CURDIR)/build/sanitize
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANITIZE_RUN := import sys, pytest, sudoku; sudoku.__path__.insert(0, "$(SANITIZE)/lib/sudoku"); \
	import sudoku._engine as e; print("sanitized engine:", e.__file__, flush=True); \
	assert e.__file__.startswith("$(SANITIZE)/"), "not the sanitized build"; \
	sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--capture=sys", *sys.argv[1:]]))

sanitize: $(BIN)/.installed-test
ifeq ($(shell uname -s),Linux)
	rm -rf $(SANITIZE)
	$(BIN)/python -c 'import setuptools' 2>/dev/null || $(BIN)/python -m pip install -q 'setuptools>=69'
	CC=gcc SUDOKU_CFLAGS="$(SANITIZE_FLAGS) -fno-wrapv -O1 -g" SUDOKU_LDFLAGS="$(SANITIZE_FLAGS)" \
		$(BIN)/python setup.py -q build_ext --build-lib $(SANITIZE)/lib --build-temp $(SANITIZE)/tmp
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 PYTHONMALLOC=malloc \
		$(BIN)/python -X dev -c '$(SANITIZE_RUN)' $(wildcard tests/test_engine*.py) $(PYTEST_ARGS)
else
	@echo "make sanitize: skipped on $(shell uname -s): it preloads gcc's libasan, which needs Linux"
endif

clean:
	rm -rf $(VENV) $(NEWEST_RQ) build *.egg-info sudoku/*.so

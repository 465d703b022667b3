# The two commands of README.md: `make up` (run the service) and `make test`.
# Both create .venv with the first python3 >= 3.11 found and install this
# package into it, building the C engine; nothing else is needed.

PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: up test proto bench clean

up: $(BIN)/.installed
	$(BIN)/sudoku-server

test: $(BIN)/.installed-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "error: Python 3.11 or newer is needed (python3 --version)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(BIN)/.installed: $(BIN)/python pyproject.toml setup.py $(wildcard worker/csrc/*)
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(BIN)/.installed-test: $(BIN)/python pyproject.toml setup.py $(wildcard worker/csrc/*)
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@ $(BIN)/.installed

# Regenerates sudoku/v1 from proto/ (tests/test_proto.py fails until you do).
proto: $(BIN)/.installed-test
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. proto/sudoku/v1/sudoku.proto

clean:
	rm -rf $(VENV) build *.egg-info worker/*.so

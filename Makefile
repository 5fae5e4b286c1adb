# The two commands of the README:  `make run`  and  `make test`.
# Each creates .venv and installs the project (building the Cython extensions) on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
SOURCES_NATIVE := $(shell find engine -name '*.pyx' -o -name '*.pxd' -o -name '*.h' -o -name '*.c' 2>/dev/null)

.PHONY: run test test-tools test-docker bench build clean

$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	# the build requirements live in the venv too: `make build` re-cythonizes in place with them
	$(PY) -m pip install --quiet 'Cython>=3.0' 'numpy>=1.26'
	# the optional extras too: the suite runs self-play on a Dask LocalCluster and draws its imps.png
	$(PY) -m pip install --quiet --no-build-isolation -e '.[test,dask,plot]'
	touch $@

# Rebuild the extensions in place whenever a .pyx/.pxd/.h changed (pip's editable install builds them once).
build: $(STAMP) $(SOURCES_NATIVE)
	$(PY) setup.py --quiet build_ext --inplace

# A short robot match on embedded defaults: our table manager and eight robots on loopback, fast against default.
run: build
	rm -rf out/make-run
	$(VENV)/bin/squeeze match --boards 4 --a fast --b default --out out/make-run

# mosquitto, chromium and tmux for the live-event tests (Debian's packages, installed when missing)
test-tools:
	bash tests/install-test-tools.sh

# Lint first (ruff: the rules in pyproject.toml, bugs not style), then the whole suite, tests/docker included
# (SQUEEZE_DOCKER_TESTS=0 leaves that part out, on purpose only). The 30 slowest tests are listed at the end: CI has
# 30 minutes on 2 cores, and that list says where they go.
test: build test-tools
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q -p no:cacheprovider --durations=30

# The image and the compose match on a real Docker daemon: Docker from Debian's packages and a daemon started when
# none is running (stopped afterwards, the host's network settings restored), the base images built with
# debootstrap where Docker Hub cannot be reached (tests/docker/test_docker.py). Its steps' times:
# out/docker-test-timings.json.
test-docker: build
	$(VENV)/bin/pytest -q -p no:cacheprovider tests/docker
	@cat out/docker-test-timings.json

clean:
	rm -rf build $(VENV) $(shell find engine -name '*.so')

# Every target bootstraps its venv itself: a fresh clone needs only python3 and make.
PYTHON ?= python3
PIP_FLAGS := --quiet --disable-pip-version-check
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The lowest supported versions (constraints/lowest.txt) in their own venv: the floors of the
# dependency ranges in pyproject.toml are what this run proves.
LOWEST_VENV := .venv-lowest
LOWEST_STAMP := $(LOWEST_VENV)/.installed
# A meaningful, fast part of the suite: protocol, consumer, dialects, telemetry, end to end,
# and the CLI's rich views (the live tree, the trace waterfall, agent text kept inert, a watch
# of a real agent: ~6 s) on the lowest rich.
LOWEST_TESTS := tests/test_envelope_codec.py tests/test_producer.py tests/consumer \
	tests/dialects tests/e2e tests/otel tests/interop \
	tests/cli/test_live_view_rich.py tests/cli/test_trace_waterfall.py \
	tests/cli/test_terminal_injection.py tests/cli/test_watch_plain_agent.py
# OpenTelemetry's HTTP exporter before 1.41 gives up on a refused connection at once (its one
# retry's ConnectionError escapes export()) instead of retrying with backoff, so its export is
# never "stuck" as this case requires; the turns completing, the point, is checked by the others.
LOWEST_DESELECT := --deselect 'tests/otel/test_dead_collector.py::test_turns_complete_while_exports_are_stuck[http/protobuf-refused]'

# a2a-progress on the a2a-sdk 0.3 line (what CrewAI, Strands, Agno and BeeAI pin): the seam's
# 0.3 adapter, the README's callee on 0.3's own server, follow(), the instrumentor on both sides,
# multi-turn tasks, and mixed lines in one trace. 0.3.26 is both the lowest and the newest 0.3
# release the code supports.
SDK03_VENV := .venv-sdk03
SDK03_STAMP := $(SDK03_VENV)/.installed-strands
SDK03_REQUIREMENT := a2a-sdk[http-server,grpc]==0.3.26
# Strands' own A2A server runs here too (tests/frameworks): it pins a2a-sdk 0.3.
STRANDS_REQUIREMENT := strands-agents[a2a]==1.61.*
SDK03_TESTS := tests/sdk03 tests/frameworks tests/test_sdk_seam.py tests/test_envelope_properties.py

# a2a-progress installed beside google-adk's A2A extra (which caps OpenTelemetry at 1.44);
# its real-ADK tests (marker `adk`) run only here.
ADK_VENV := .venv-adk
ADK_STAMP := $(ADK_VENV)/.installed
ADK_REQUIREMENT := google-adk[a2a]==2.13.*

# `make demo` needs only the runtime (no test, docs or bench tools): a venv of its own.
DEMO_VENV := .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed

.PHONY: test-sdk03 venv system-deps test-light test lint typecheck unit ir-guard docs package test-lowest test-adk demo bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install $(PIP_FLAGS) --upgrade pip
	$(BIN)/python -m pip install $(PIP_FLAGS) --upgrade --upgrade-strategy eager -e '.[cli,dev,bench]'
	touch $(STAMP)

venv: $(STAMP)

# What the suite needs from Debian: Chromium for the browser tests (tests/web; never a browser
# download), a compose CLI to validate docker-compose.yml, valgrind and a C compiler for the
# instruction counts (ir-guard, make bench). Installed only where missing, as root.
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v valgrind >/dev/null 2>&1 || missing="$$missing valgrind"; \
	command -v cc >/dev/null 2>&1 || missing="$$missing gcc"; \
	{ docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1; } \
		|| missing="$$missing docker-compose"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "make test needs Debian packages:$$missing (run: sudo apt-get install$$missing)"; \
			exit 1; \
		fi; \
		echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench fuzz examples
	$(BIN)/ruff format --check src examples

typecheck: $(STAMP)
	$(BIN)/mypy --strict src examples

# tests/sdk03 and tests/frameworks need the 0.3 venv: test-sdk03 runs them (here they would
# only be skipped).
unit: $(STAMP)
	$(BIN)/pytest --ignore=tests/sdk03 --ignore=tests/frameworks

# The bridge's instructions per update above the OpenTelemetry SDK floor, counted by callgrind
# in a short in-process run (~40 s of CPU), against the budget in bench/ir_budget.json (+10% fails).
ir-guard: $(STAMP)
	$(BIN)/python bench/ir_guard.py

# The documentation site (mkdocs.yml; built into build/site): a broken API reference fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

$(LOWEST_STAMP): pyproject.toml constraints/lowest.txt
	rm -rf $(LOWEST_VENV)
	$(PYTHON) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install $(PIP_FLAGS) -c constraints/lowest.txt -e '.[cli,dev]'
	$(LOWEST_VENV)/bin/python -m pip check
	touch $(LOWEST_STAMP)

test-lowest: $(LOWEST_STAMP)
	$(LOWEST_VENV)/bin/python -m pip list --format=freeze | grep -iE '^(a2a-sdk|opentelemetry-(api|sdk|instrumentation)|wrapt|rich|uvicorn)='
	$(LOWEST_VENV)/bin/pytest -p no:cacheprovider $(LOWEST_TESTS) $(LOWEST_DESELECT)

# A library install (no extra) in a throwaway venv beside a vendor-pinned, older OpenTelemetry
# SDK: pip check passes, the instrumentor works, nothing of the [cli] extra came with it, and
# the parts that need the extra (and the a2a-progress command) say so in one line.
LIGHT_VENV := .venv-light
LIGHT_SDK := opentelemetry-sdk==1.39.0

test-light:
	rm -rf $(LIGHT_VENV)
	$(PYTHON) -m venv $(LIGHT_VENV)
	$(LIGHT_VENV)/bin/python -m pip install $(PIP_FLAGS) . '$(LIGHT_SDK)'
	$(LIGHT_VENV)/bin/python -m pip check
	cd tests/light && ../../$(LIGHT_VENV)/bin/python check_light_install.py
	rm -rf $(LIGHT_VENV)

$(ADK_STAMP): pyproject.toml
	rm -rf $(ADK_VENV)
	$(PYTHON) -m venv $(ADK_VENV)
	$(ADK_VENV)/bin/python -m pip install $(PIP_FLAGS) -e '.[cli,dev]' '$(ADK_REQUIREMENT)'
	touch $(ADK_STAMP)

$(SDK03_STAMP): pyproject.toml
	rm -rf $(SDK03_VENV)
	$(PYTHON) -m venv $(SDK03_VENV)
	$(SDK03_VENV)/bin/python -m pip install $(PIP_FLAGS) -e '.[cli]' '$(SDK03_REQUIREMENT)' \
		'$(STRANDS_REQUIREMENT)' 'opentelemetry-sdk>=1.39,<2' 'pytest>=8,<10' 'pytest-asyncio>=1.0,<2' 'pytest-timeout>=2.3,<3' \
		'hypothesis>=6.100,<7' 'opentelemetry-distro>=0.60b0,<1' \
		'opentelemetry-exporter-otlp>=1.39,<2' 'uvicorn>=0.30,<1'
	touch $(SDK03_STAMP)

# Then mixed lines from the 1.x venv: a 1.x caller and the 1.x CLI against a 0.3 callee process.
test-sdk03: $(SDK03_STAMP) $(STAMP)
	$(SDK03_VENV)/bin/python -m pip check
	$(SDK03_VENV)/bin/python -m pip list --format=freeze | grep -iE '^(a2a-sdk|opentelemetry-sdk|strands-agents)='
	$(SDK03_VENV)/bin/pytest -p no:cacheprovider $(SDK03_TESTS)
	$(BIN)/pytest -p no:cacheprovider tests/sdk03/test_mixed_lines.py tests/frameworks/test_strands_watch.py

test-adk: $(ADK_STAMP)
	$(ADK_VENV)/bin/python -m pip check
	$(ADK_VENV)/bin/python -m pip list --format=freeze | grep -iE '^(google-adk|a2a-sdk|opentelemetry-(api|sdk))='
	$(ADK_VENV)/bin/pytest -p no:cacheprovider -m adk tests/interop

# The sdist and wheel as they would be published (build/dist), their metadata checked by twine;
# the wheel's contents are checked by tests/test_packaging.py.
package: $(STAMP)
	rm -rf build/dist
	$(BIN)/python -m build --outdir build/dist . >/dev/null
	$(BIN)/twine check --strict build/dist/*

test: system-deps lint typecheck docs package unit ir-guard test-light test-lowest test-adk test-sdk03

$(DEMO_STAMP): pyproject.toml
	rm -rf $(DEMO_VENV)
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install $(PIP_FLAGS) --no-compile --upgrade pip  # resolves faster
	$(DEMO_VENV)/bin/python -m pip install $(PIP_FLAGS) --no-compile -e '.[cli]'
	$(DEMO_VENV)/bin/python -m compileall -q -j 0 $(DEMO_VENV)/lib >/dev/null  # on every core
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/a2a-progress demo

bench: system-deps $(STAMP)
	$(BIN)/python bench/run.py

fuzz: $(STAMP)
	$(BIN)/python -m pip install $(PIP_FLAGS) -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz_decode.py -max_total_time=$${FUZZ_SECONDS:-60} fuzz/corpus

clean:
	rm -rf $(VENV) $(LOWEST_VENV) $(ADK_VENV) $(SDK03_VENV) $(LIGHT_VENV) $(DEMO_VENV) .mypy_cache .pytest_cache .ruff_cache

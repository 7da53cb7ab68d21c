# Entry points for a fresh machine: `make serve`, `make test` (and `make play`). All create .venv.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.installed-test-stamp

# Each step says what it does, and pip names each package as it fetches and builds it (the rest of
# its output goes to $(VENV)/install-deps.log and install-build.log, shown if the install fails).
$(VENV)/bin/python:
	@echo "==> creating $(VENV) with $$($(PYTHON) --version)"
	$(PYTHON) -m venv $(VENV)
	@echo "==> upgrading pip in $(VENV)"
	$(VENV)/bin/pip install --quiet --upgrade pip

# The install compiles the hot modules with Cython (hatch_build.py; pure Python with a warning
# when it cannot, or with FIELDCRAFT_PURE=1): an edited hot module reinstalls, which compiles
# only what changed. docs/performance.md.
# (build.py lists the core's and reads each game's GameSpec.hot: a new game's are inputs too)
HOT_SOURCES := $(shell $(PYTHON) fieldcraft/build.py --sources) \
	$(wildcard fieldcraft/*/*.pxd fieldcraft/*/*/*.pxd fieldcraft/games/*/__init__.py)
# Which build the install makes is an input too: switching FIELDCRAFT_PURE reinstalls.
BUILD_MODE := $(if $(filter-out 0,$(FIELDCRAFT_PURE)),pure,compiled)
BUILD_INPUTS := pyproject.toml hatch_build.py fieldcraft/build.py $(HOT_SOURCES) \
	$(VENV)/.build-mode
REPORT_BUILD = $(VENV)/bin/python -c 'from fieldcraft.build import main; main()' --report

$(VENV)/.build-mode: FORCE | $(VENV)/bin/python
	@echo $(BUILD_MODE) | cmp -s - $@ || echo $(BUILD_MODE) > $@

# Playing and serving need the web table and the study tools only; the tests also need the test
# tools, Ray (a large download a player should not wait for), the research frameworks and JAX
# (extra `deep`: OpenSpiel's Deep CFR and NFSP on the information-state tensor, tested in CI).
SERVE_EXTRAS := web,postgres,study
TEST_EXTRAS := test,web,postgres,study,ray,openspiel,pettingzoo,deep
# pip $(1), its output in $(VENV)/install-$(2).log (shown whole if it fails), each line it
# prints that names a step or a package prefixed with [$(2)].
PIP_STEPS = bash -o pipefail -c '$(VENV)/bin/pip install --progress-bar off $(1) 2>&1 \
	| tee $(VENV)/install-$(2).log | grep -E --line-buffered \
	"^ *(Obtaining|Collecting|Installing|Getting|Preparing|Building|Successfully|ERROR|WARNING)" \
	| sed -u "s/^/[$(2)] /"; status=$${PIPESTATUS[0]}; \
	[ $$status = 0 ] || cat $(VENV)/install-$(2).log; exit $$status'
# fieldcraft's requirements with the extras $(1), one a line (pyproject.toml is the one list).
REQUIREMENTS = $(PYTHON) -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))\
	["project"]; print("\n".join(p["dependencies"] + [r for e in sys.argv[1].split(",") \
	for r in p["optional-dependencies"][e]]))' $(1)
# Two pip runs at once (issue 34: a cold install took its compile and its downloads one after the
# other): [deps] fetches and unpacks the requirements, mostly waiting on the network and the
# disk, while [build] installs fieldcraft alone, whose build is the Cython compile on every core.
# Both must succeed; pip check then confirms the two halves make one consistent install.
INSTALL = $(call REQUIREMENTS,$(1)) > $(VENV)/requirements.txt && \
	{ $(call PIP_STEPS,-r $(VENV)/requirements.txt,deps) & deps=$$!; \
	  $(call PIP_STEPS,--no-deps -e .,build); build=$$?; wait $$deps; d=$$?; \
	  [ $$build = 0 ] && [ $$d = 0 ]; } && $(VENV)/bin/pip check

$(STAMP): $(BUILD_INPUTS) | $(VENV)/bin/python
	@echo "==> installing fieldcraft and the web table into $(VENV): [deps] fetches the"
	@echo "    dependencies while [build] compiles the engines with Cython (the longest step;"
	@echo "    FIELDCRAFT_PURE=1 skips it)"
	@$(call INSTALL,$(SERVE_EXTRAS))
	@$(REPORT_BUILD)
	touch $(STAMP)

$(TEST_STAMP): $(BUILD_INPUTS) | $(VENV)/bin/python
	@echo "==> installing fieldcraft with the test tools and research frameworks into $(VENV)"
	@$(call INSTALL,$(TEST_EXTRAS))
	@$(REPORT_BUILD)
	touch $(TEST_STAMP)

# make serve PORT=8080 DB=postgresql://user:pw@127.0.0.1/fieldcraft (HOST= too: see docs/web.md)
serve: $(STAMP)
	@echo "==> starting the web table"
	$(VENV)/bin/fieldcraft serve $(if $(HOST),--host '$(HOST)') $(if $(PORT),--port '$(PORT)') \
		$(if $(DB),--db '$(DB)')

play: $(STAMP)
	$(VENV)/bin/fieldcraft play under-current --players 5

# The whole suite runs on the installed build (compiled where it could be); the rules checks run
# again on the pure-Python modules, so both builds are held to the same goldens.
PURE_TESTS := tests/test_conformance.py tests/test_golden.py

test: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -n auto
	FIELDCRAFT_PURE=1 $(VENV)/bin/pytest -n auto -p no:cacheprovider $(PURE_TESTS)

bench: $(STAMP)
	$(VENV)/bin/fieldcraft bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

FORCE:

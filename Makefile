# Entry points for a fresh machine: `make serve`, `make test` (and `make play`). All create .venv.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.installed-test-stamp

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip

# Playing and serving need the web table and the study tools only; the tests also need the test
# tools, Ray (a large download a player should not wait for) and the research frameworks.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet -e '.[web,postgres,study]'
	touch $(STAMP)

$(TEST_STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet -e '.[test,web,postgres,study,ray,openspiel,pettingzoo]'
	touch $(TEST_STAMP)

serve: $(STAMP)
	$(VENV)/bin/fieldcraft serve

play: $(STAMP)
	$(VENV)/bin/fieldcraft play under-current --players 5

test: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -n auto

bench: $(STAMP)
	$(VENV)/bin/fieldcraft bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

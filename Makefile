# Entry points for a fresh machine: `make serve`, `make test` (and `make play`). All create .venv.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp

.PHONY: serve play test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test,web,postgres,study]'
	touch $(STAMP)

serve: $(STAMP)
	$(VENV)/bin/fieldcraft serve

play: $(STAMP)
	$(VENV)/bin/fieldcraft play under-current --players 5

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(VENV)/bin/fieldcraft bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

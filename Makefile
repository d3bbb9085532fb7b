# The two commands of the README, each doing its own set-up on a fresh machine:
#   make serve   build the site (a cold cache runs every block) and serve it at http://127.0.0.1:8000/;
#                not strict, so a draft lesson previews (warnings shown); make build and make test are strict;
#                FRONTEND=properdocs builds and serves it with ProperDocs instead of MkDocs
#   make test    run every test (engine, failure matrix, every block of the site, site build, browser)
# and for contributors: make test-fast (pure engine and authoring tests, seconds), make test-engine
# (every engine test, real torch processes included, no site build), make build,
# make mutation (mutation testing of the engine's core), make lock, make diagrams (record the drawing
# of each new or changed diagram), and make record-releases (every block
# run twice on the build's torch, then on each of RELEASES in its own venv once, and a second time where
# the first printed otherwise than the build's torch: records/releases/).
#
# Why make: it is on every Linux and macOS machine, so nothing has to be installed before the first
# command, and its stamp files make a second run skip every set-up step whose inputs did not change.
# Versions come from constraints.txt (pip freeze of the last tested environment), so a build a
# year from now resolves the same packages; torch==2.15.0 stays pinned without a local label.
#
# The install reads no pip configuration of the machine (PIP_CONFIG_FILE=/dev/null, no find-links,
# constraints or extra indexes from the environment): a machine-wide cap or a local wheel directory
# must not change which torch the site is built with. Only a CA bundle (PIP_CERT) is kept.

PYTHON ?= python3
VENV := .venv
INSTALLED := $(VENV)/.installed
VENDORED := docs/javascripts/vendor/mermaid.min.js docs/javascripts/vendor/ts-fsrs.umd.js
CHROMIUM ?= /usr/bin/chromium
# the site generator: mkdocs, or properdocs (a maintained MkDocs 1.6 fork; the same site, tested)
FRONTEND ?= mkdocs
PIP := env -u PIP_FIND_LINKS -u PIP_CONSTRAINT -u PIP_EXTRA_INDEX_URL -u PIP_INDEX_URL -u PIP_NO_INDEX \
	PIP_CONFIG_FILE=/dev/null $(VENV)/bin/pip

.PHONY: serve build test test-fast test-engine mutation install browser lock record-releases diagrams

serve: install
	$(VENV)/bin/$(FRONTEND) serve --no-strict

build: install
	$(VENV)/bin/$(FRONTEND) build --strict

test: install browser
	$(VENV)/bin/python -m pytest tests README.md --codeblocks

# the pure tests: keys, options, rendering, quiz parsing and HTML, GPU record states, claims links
test-fast: install
	$(VENV)/bin/python -m pytest -m unit tests

test-engine: install
	$(VENV)/bin/python -m pytest -m "not slow and not site and not browser" tests

# mutants of the engine's pure core against its fast tests; fails on a survivor not listed as equivalent
mutation: install
	$(VENV)/bin/python tools/mutation.py

install: $(INSTALLED) $(VENDORED)

$(INSTALLED): pyproject.toml constraints.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet -c constraints.txt -e '.[test]'
	touch $@

$(VENDORED) &: tools/vendor_js.py | $(INSTALLED)
	$(VENV)/bin/python tools/vendor_js.py

# the browser tests drive the Debian/Ubuntu chromium package (installing it needs root)
browser:
	@test -x $(CHROMIUM) || command -v chromium >/dev/null || apt-get install -y chromium \
		|| (apt-get update && apt-get install -y chromium)

RELEASES ?= 2.14.1 2.13.0 2.13.0+cpu
record-releases: install
	$(VENV)/bin/dpguide record-release $(if $(REFRESH),--refresh)
	$(PYTHON) tools/record_release.py $(RELEASES) $(if $(REFRESH),--refresh) $(if $(FIND_LINKS),--find-links $(FIND_LINKS))

# the drawing of every diagram of the site, made once in Chromium (records/diagrams/): pages then
# show it without loading Mermaid
diagrams: install browser
	$(VENV)/bin/python tools/record_diagrams.py

lock: $(INSTALLED)
	{ sed -n '1,/^# index/p' constraints.txt; $(PIP) freeze --exclude-editable \
		| sed 's/^torch==\([0-9.]*\)+.*/torch==\1/'; } > constraints.txt.new && mv constraints.txt.new constraints.txt

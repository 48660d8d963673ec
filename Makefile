SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
DEMO_CONFIG ?= config/demo.json

.PHONY: all deps build release test run clean bench

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Build everything once, then run the whole suite against the built binaries.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

run: build
	$(SWIFT) run alertd --config $(DEMO_CONFIG)

clean:
	$(SWIFT) package clean
	rm -rf .build .alertd

SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
DEMO_CONFIG ?= config/demo.json

# Where `make install` puts things; DESTDIR stages the tree for packaging.
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
MANDIR ?= $(PREFIX)/share/man
BASHCOMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
FISHCOMPLETIONDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SYSCONFDIR ?= /etc
# SwiftPM's link to the release build: `install` runs as root, often with a
# PATH that has no swift, and must not build (as root, in the user's tree).
RELEASE_BIN = .build/release
# Evaluated only by the recipes that use it.
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)

.PHONY: all deps test-deps build release test run clean bench man install uninstall

all: build

# What the build needs; the tests also run Prometheus, Alertmanager,
# PostgreSQL, chromium and a Python SMTP server, installed by test-deps.
deps:
	@bash scripts/install-deps.sh

test-deps:
	@bash scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

# The Swift runtime and FoundationEssentials linked in (no full Foundation,
# so no ICU data): the binaries need no Swift libraries on the target
# machine, and `alertctl --version` costs ~4 ms of CPU (a script calls it
# once per alert). libcurl, libcrypto and libpq are loaded only when used.
# The link (Package.swift) lays out first the code that start-up and idling
# run, from linking/*.order; scripts/order-symbols.py rewrites those lists
# (under valgrind) after start-up changes.
RELEASE_FLAGS = -c release --static-swift-stdlib

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Build everything once, then run the whole suite against the built binaries.
# One test at a time: many tests start real daemons, and on a 2-core machine
# running them side by side turns timing checks into coin flips.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

# Benchmarks, not tests: alertd against Alertmanager, side by side, written to
# BENCHMARKS.md (see bench/run.sh; BENCH_QUICK=1 for a short check). `test`
# neither builds nor runs anything in bench/.
bench: deps
	bash bench/install-bench-deps.sh
	$(SWIFT) build $(RELEASE_FLAGS)
	bash bench/run.sh

run: build
	$(SWIFT) run alertd --config $(DEMO_CONFIG)

clean:
	$(SWIFT) package clean
	rm -rf .build .alertd

# The man pages are generated from the commands (`--generate-manpage`); docs/
# keeps them as generated, and a test fails when they differ. Regenerate them
# after changing a command, its options or its ManualPage.
man: build
	$(DEBUG_BIN)/alertctl --generate-manpage > docs/alertctl.1
	$(DEBUG_BIN)/alertd --generate-manpage > docs/alertd.8

# The release binaries, the systemd units (ExecStart= pointing at BINDIR),
# sysusers and tmpfiles entries, man pages and bash and fish completion (all printed
# by the installed binaries from their command trees). The default
# config is installed only if there is none yet. It installs what
# `make release` built and builds nothing itself.
install:
	@if [ ! -x $(RELEASE_BIN)/alertd ] || [ ! -x $(RELEASE_BIN)/alertctl ]; then \
		echo "no release build in $(RELEASE_BIN): run 'make release' first (as yourself, not as root)" >&2; exit 1; \
	fi
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPLETIONDIR) $(DESTDIR)$(FISHCOMPLETIONDIR) \
		$(DESTDIR)$(SYSCONFDIR)/alertd
	install -m 0755 $(RELEASE_BIN)/alertd $(RELEASE_BIN)/alertctl $(DESTDIR)$(BINDIR)/
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/etc/alertd/|$(SYSCONFDIR)/alertd/|g' systemd/alertd.service > $(DESTDIR)$(UNITDIR)/alertd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/alertd.service
	install -m 0644 systemd/alertd.socket systemd/alertd-http.socket $(DESTDIR)$(UNITDIR)/
	install -m 0644 systemd/alertd.sysusers $(DESTDIR)$(SYSUSERSDIR)/alertd.conf
	install -m 0644 systemd/alertd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/alertd.conf
	$(RELEASE_BIN)/alertd --generate-manpage > $(DESTDIR)$(MANDIR)/man8/alertd.8
	$(RELEASE_BIN)/alertctl --generate-manpage > $(DESTDIR)$(MANDIR)/man1/alertctl.1
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/alertd.8 $(DESTDIR)$(MANDIR)/man1/alertctl.1
	$(RELEASE_BIN)/alertctl completion bash > $(DESTDIR)$(BASHCOMPLETIONDIR)/alertctl
	$(RELEASE_BIN)/alertctl completion fish > $(DESTDIR)$(FISHCOMPLETIONDIR)/alertctl.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPLETIONDIR)/alertctl $(DESTDIR)$(FISHCOMPLETIONDIR)/alertctl.fish
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/alertd/alertd.json ]; then \
		echo "keeping the existing $(DESTDIR)$(SYSCONFDIR)/alertd/alertd.json"; \
	else \
		install -m 0644 config/alertd.json $(DESTDIR)$(SYSCONFDIR)/alertd/alertd.json; \
	fi
	@if [ -z "$(DESTDIR)" ]; then \
		echo "next: systemd-sysusers $(SYSUSERSDIR)/alertd.conf && systemd-tmpfiles --create $(TMPFILESDIR)/alertd.conf && systemctl daemon-reload"; \
		echo "      systemctl enable --now alertd.socket alertd.service"; \
	fi

# Removes what `install` put in place, except the config and the state.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/alertd $(DESTDIR)$(BINDIR)/alertctl
	rm -f $(DESTDIR)$(UNITDIR)/alertd.service $(DESTDIR)$(UNITDIR)/alertd.socket $(DESTDIR)$(UNITDIR)/alertd-http.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/alertd.conf $(DESTDIR)$(TMPFILESDIR)/alertd.conf
	rm -f $(DESTDIR)$(MANDIR)/man8/alertd.8 $(DESTDIR)$(MANDIR)/man1/alertctl.1
	rm -f $(DESTDIR)$(BASHCOMPLETIONDIR)/alertctl $(DESTDIR)$(FISHCOMPLETIONDIR)/alertctl.fish

# tablefull — see README.md. `make run` opens the console; `sudo make test`
# installs what the tests need (on Debian/Ubuntu, as root) and runs them all.

GO        ?= go
BIN       ?= ./tablefull
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
TEST_DEPS := nftables conntrack tmux iproute2 procps kmod openssh-server openssh-client prometheus
BENCH_DEPS := htop prometheus-node-exporter

.PHONY: build run test deps lint bench fuzz fuzz-all clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tablefull

run: build
	$(BIN)

# deps installs the tools the kernel and tmux tests drive, when missing and
# when we can (root with apt-get); otherwise those tests skip and say why.
deps:
	@missing=""; for p in $(TEST_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else echo "not installing$$missing (needs root and apt-get): the tests that need them will skip"; fi; \
	fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every fuzz target, as package:Target; make test runs each briefly,
# make fuzz for longer.
FUZZ := ./sources:FuzzParseCTStat ./sources:FuzzParseFlow ./sources:FuzzUndoRecord \
	./sources:FuzzKmsgRecord ./sources:FuzzNetlinkStats ./sources:FuzzSlabinfo \
	./sources/lab:FuzzLabState ./remote:FuzzDecoder ./model:FuzzSanitize ./model:FuzzParseValue \
	./tui:FuzzDecodeRender ./cmd/tablefull:FuzzControlRequest ./cmd/tablefull:FuzzSSHArgv \
	./cmd/tablefull:FuzzViaArgv ./cmd/tablefull:FuzzNetnsArgv
FUZZTIME ?= 6s

test: deps lint
	$(GO) test -count=1 -timeout 15m ./...
	@for t in $(FUZZ); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg >/tmp/tablefull-fuzz.log 2>&1 || { cat /tmp/tablefull-fuzz.log; exit 1; }; \
	done

bench: build
	@missing=""; for p in $(BENCH_DEPS); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then apt-get install -y -qq $$missing >/dev/null; fi
	$(GO) test -run '^$$' -bench . -benchmem ./model ./sources ./remote ./tui
	$(GO) test -tags bench -count=1 -run 'Ratio' -v ./sources ./cmd/tablefull | grep -E '^(=== RUN|    |--- |ok|FAIL)' 

fuzz:
	$(MAKE) --no-print-directory FUZZTIME=2m fuzz-all

fuzz-all:
	@for t in $(FUZZ); do pkg=$${t%%:*}; fn=$${t##*:}; echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; done

clean:
	rm -f $(BIN)

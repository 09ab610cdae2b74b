# typedinformer: build, test and check the toolchain.
# Every target installs what it needs through the Go toolchain; nothing else is assumed.

GO ?= go
PKGS := ./...

.PHONY: all build test unit lint vet fmt-check

all: build test

build:
	$(GO) build $(PKGS)

## test: everything CI runs: lint, then the race-enabled unit tests.
test: lint unit

unit:
	$(GO) test -race -count=1 $(PKGS)

lint: vet fmt-check

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '/testdata/')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

#!/usr/bin/env bash
# Side-by-side bench suite: this project against client-go v0.37.2 and
# k8s.io/code-generator v0.37.2 (see bench/ and docs/benchmarks.md).
#
#   hack/bench.sh          full suite, about 25-30 minutes on 2 quiet cores
#                          (estimated from per-part times; minutes: decode
#                          12-14, 3 passes of 14 processes at 10k and 100k
#                          Pods; sync ~2; workqueue ~2.5; index ~2;
#                          events ~1.5; generator ~1; genhelpers 3 at
#                          one run on a loaded machine, so about 6-8 at
#                          the default counts; each part logs its time);
#                          writes docs/benchmarks.md and its SVG
#                          charts (docs/bench-*.svg) and prints the report
#   BENCH_RUNS=N hack/bench.sh
#                          the same suite with at most N runs per side and
#                          cell (the defaults are 3 to 9; decode 3): every
#                          row measures the same thing, each median just
#                          rests on fewer runs, so single-run noise shows
#                          more. BENCH_RUNS=1 takes about 8-10 minutes,
#                          BENCH_RUNS=2 about 13-15; the report header
#                          gives the counts used.
#   BENCH_GEN_TMPDIR=DIR hack/bench.sh
#                          the generator rows (5 to 5e) write their output
#                          and module copies under DIR instead of the
#                          system's temporary directory: both sides create
#                          the same ~2,000 files, and on a file system where
#                          that is slow (ext4 without a journal checks every
#                          recently deleted inode it passes) it is most of
#                          ours' wall time; the report names the file system
#   hack/bench.sh -smoke   for CI: vets and tests the bench module, runs every
#                          go benchmark once (-benchtime=1x -short) and every
#                          suite row once on tiny inputs; asserts no timing
#                          and writes nothing into the tree
#
# Everything is built here with the Go toolchain: the bench driver and the
# upstream generators from the bench module (bench/go.mod pins their
# versions), our informer-gen from the main module. The row of a tool that
# does not exist yet is reported as missing; a tool that exists but fails to
# build fails the script.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
mode=full
case "${1:-}" in
  "") ;;
  -smoke | --smoke) mode=smoke ;;
  -h | --help)
    sed -n '2,39p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "usage: hack/bench.sh [-smoke]" >&2
    exit 2
    ;;
esac

case "${BENCH_RUNS:-}" in
  *[!0-9]*) echo "hack/bench.sh: BENCH_RUNS must be a number of runs, got '$BENCH_RUNS'" >&2; exit 2 ;;
esac

# The bench module replaces the main module with ../, so a requirement the
# main module gains must be visible to it: let the go command add it rather
# than stop.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"

bin=$(mktemp -d "${TMPDIR:-/tmp}/typedinformer-bench.XXXXXX")
trap 'rm -rf "$bin"' EXIT

say() { printf '==> %s\n' "$*" >&2; }

say "building the bench driver and upstream informer-gen, lister-gen, client-gen, applyconfiguration-gen, deepcopy-gen (k8s.io/code-generator, bench/go.mod)"
(cd "$root/bench" && "$GO" build -o "$bin/benchtable" ./cmd/benchtable)
mkdir -p "$bin/upstream"
(cd "$root/bench" && "$GO" build -o "$bin/upstream/" k8s.io/code-generator/cmd/informer-gen k8s.io/code-generator/cmd/lister-gen \
  k8s.io/code-generator/cmd/client-gen k8s.io/code-generator/cmd/applyconfiguration-gen k8s.io/code-generator/cmd/deepcopy-gen)
(cd "$root/bench" && "$GO" mod download k8s.io/api)

run_args=(-upstream-informer-gen "$bin/upstream/informer-gen" -upstream-lister-gen "$bin/upstream/lister-gen"
  -upstream-client-gen "$bin/upstream/client-gen" -upstream-applyconfiguration-gen "$bin/upstream/applyconfiguration-gen"
  -upstream-deepcopy-gen "$bin/upstream/deepcopy-gen")
if [ -d "$root/cmd/informer-gen" ]; then
  say "building our informer-gen (main module)"
  (cd "$root" && "$GO" build -o "$bin/ours/informer-gen" ./cmd/informer-gen)
  run_args+=(-ours-gen "$bin/ours/informer-gen")
else
  say "cmd/informer-gen does not exist yet: the generator row will be reported missing"
fi

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then
  commit="$commit with uncommitted changes"
fi
run_args+=(-commit "$commit")
if [ -n "${BENCH_RUNS:-}" ]; then
  run_args+=(-max-runs "$BENCH_RUNS")
fi
if [ -n "${BENCH_GEN_TMPDIR:-}" ]; then
  run_args+=(-gen-tmpdir "$BENCH_GEN_TMPDIR")
fi

if [ "$mode" = smoke ]; then
  say "vet and race-enabled tests of the bench module"
  (cd "$root/bench" && "$GO" vet ./... && "$GO" test -race -count=1 ./...)
  say "every go benchmark once"
  (cd "$root/bench" && "$GO" test -run '^$' -bench . -benchtime=1x -short ./...)
  say "every suite row once on tiny inputs (numbers are meaningless)"
  (cd "$root/bench" && "$bin/benchtable" run -smoke -gen-dir . "${run_args[@]}" -out "$bin/benchmarks-smoke.md" >/dev/null)
  cat "$bin/benchmarks-smoke.md"
  say "smoke run passed"
  exit 0
fi

say "full suite; writing docs/benchmarks.md and docs/bench-*.svg"
mkdir -p "$root/docs"
(cd "$root/bench" && "$bin/benchtable" run -gen-dir . "${run_args[@]}" -out "$root/docs/benchmarks.md")
say "wrote docs/benchmarks.md and its charts"

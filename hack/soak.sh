#!/usr/bin/env bash
# Soak: examples/crd's foo-controller (3 sharded replicas and a leader-elected
# pair, each behind a fault-injecting proxy) against a real kube-apiserver and
# etcd, under seeded load and faults; the report goes to stdout and the work dir.
#
# Usage: hack/soak.sh [-tags TAGS] [DURATION [SEED]]    e.g. hack/soak.sh 10m 42
#
# Environment:
#   TYPEDINFORMER_CACHE  binary cache (default ~/.cache/typedinformer); see hack/kube/build.sh
#   SOAK_WORK_DIR        where logs, traces and report.{txt,json} go (default a new temp dir, kept)
#   SOAK_CLEAN=1         remove the work dir after a passing run (make test)
#   SOAK_FAULTS          comma-separated fault kinds to inject instead of all (e.g. etcd-restart,replica-join)
#
# A failing run prints the seed; `make soak SEED=... DURATION=...` replays its fault schedule and load.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tags=""
if [ "${1:-}" = "-tags" ]; then
	tags="$2"
	shift 2
fi
duration="${1:-60s}"
seed="${2:-0}"

bins="$("${root}/hack/kube/build.sh" all)"
E2E_ETCD="$(sed -n 's/^etcd=//p' <<<"${bins}")"
E2E_KUBE_APISERVER="$(sed -n 's/^kube-apiserver=//p' <<<"${bins}")"
export E2E_ETCD E2E_KUBE_APISERVER
export E2E_REPO_ROOT="${root}"

work="${SOAK_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/typedinformer-soak.XXXXXX")}"
mkdir -p "${work}"
export E2E_WORK_DIR="${work}"
# Both builds at once: linking dominates, even with a warm build cache.
(cd "${root}/examples/crd" && GOWORK=off go build -tags "${tags}" -o "${work}/foo-controller" ./cmd/foo-controller) &
ctl=$!
(cd "${root}/test/soak" && GOWORK=off go build -o "${work}/soak" ./cmd/soak)
wait "${ctl}"
echo "soak: work dir ${work}"
rc=0
"${work}/soak" --duration "${duration}" --seed "${seed}" --controller "${work}/foo-controller" --work-dir "${work}" --faults "${SOAK_FAULTS:-}" || rc=$?
if [ "${rc}" -eq 0 ] && [ "${SOAK_CLEAN:-}" = 1 ]; then
	rm -rf "${work}"
fi
exit "${rc}"

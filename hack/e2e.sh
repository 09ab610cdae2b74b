#!/usr/bin/env bash
# End-to-end suite: build (or reuse) kube-apiserver and etcd, then run the
# test/e2e module against them with the race detector.
#
# Usage: hack/e2e.sh [go test flags...]      e.g. hack/e2e.sh -run TestAPIServerRestart -v
#
# Environment:
#   TYPEDINFORMER_CACHE  binary cache (default ~/.cache/typedinformer); see hack/kube/build.sh
#   E2E_TIMEOUT          go test -timeout (default 20m)
#   E2E_KEEP_WORK_DIR=1  keep each cluster's work dir (logs, certs) for debugging
#
# The tests start their own etcd and kube-apiserver on free 127.0.0.1 ports and stop them on
# every exit path. This script additionally removes the run's temp dir and checks, through the
# pid files the framework keeps, that no server outlived the run (killing any by pid).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
t0="$(date +%s)"

bins="$("${root}/hack/kube/build.sh" all)"
E2E_ETCD="$(sed -n 's/^etcd=//p' <<<"${bins}")"
E2E_KUBE_APISERVER="$(sed -n 's/^kube-apiserver=//p' <<<"${bins}")"
t1="$(date +%s)"
echo "e2e: binaries ready in $((t1 - t0))s: ${E2E_ETCD} ${E2E_KUBE_APISERVER}"

work="$(mktemp -d "${TMPDIR:-/tmp}/typedinformer-e2e-run.XXXXXX")"
mkdir -p "${work}/pids"
export E2E_ETCD E2E_KUBE_APISERVER
export E2E_REPO_ROOT="${root}"
export E2E_WORK_DIR="${work}"
export E2E_PID_DIR="${work}/pids"

leftovers=0
cleanup() {
	local f pid
	for f in "${work}"/pids/*.pid; do
		[ -e "${f}" ] || continue
		pid="$(cat "${f}")"
		# Only a process still running one of our binaries is ours.
		if [ -d "/proc/${pid}" ] && grep -qF -e "${E2E_ETCD}" -e "${E2E_KUBE_APISERVER}" "/proc/${pid}/cmdline" 2>/dev/null; then
			echo "e2e: LEFTOVER process $(basename "${f}" .pid) still running; killing it" >&2
			kill -KILL "${pid}" 2>/dev/null || true
			leftovers=1
		fi
	done
	if [ "${E2E_KEEP_WORK_DIR:-}" != 1 ]; then
		rm -rf "${work}"
	fi
}
trap cleanup EXIT

rc=0
(
	cd "${root}/test/e2e"
	GOWORK=off GOFLAGS="${GOFLAGS:+${GOFLAGS} }-mod=mod" \
		go test -race -count=1 -timeout "${E2E_TIMEOUT:-20m}" "$@" ./...
) || rc=$?
t2="$(date +%s)"
cleanup
trap - EXIT
if [ "${rc}" -eq 0 ] && [ "${leftovers}" -ne 0 ]; then
	rc=1
fi
echo "e2e: $([ "${rc}" -eq 0 ] && echo PASS || echo FAIL): binaries $((t1 - t0))s, tests $((t2 - t1))s, total $((t2 - t0))s"
exit "${rc}"

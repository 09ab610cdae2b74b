#!/usr/bin/env bash
# Runs the operator's tests twice, unchanged: on crcache.New (the manager
# options' default) and on controller-runtime's cache.New
# (OPERATOR_CACHE=controller-runtime). Both must pass. envtest's
# kube-apiserver and etcd are the project's (hack/kube/build.sh, built once
# and cached), linked by name into a KUBEBUILDER_ASSETS directory.
# Extra arguments go to the test binary (e.g. -test.v -ginkgo.v).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "${here}/../.." && pwd)"
GO=${GO:-go}

assets="$(mktemp -d)"
trap 'rm -rf "${assets}"' EXIT
while IFS='=' read -r name path; do
	case "${name}" in kube-apiserver | etcd) ln -s "${path}" "${assets}/${name}" ;; esac
done < <("${repo}/hack/kube/build.sh" all)
[ -x "${assets}/kube-apiserver" ] && [ -x "${assets}/etcd" ] ||
	{ echo "operator: hack/kube/build.sh all did not name kube-apiserver and etcd" >&2; exit 1; }
export KUBEBUILDER_ASSETS="${assets}"

# One race-enabled test binary, run once per cache.
(cd "${here}" && ${GO} vet ./... && ${GO} test -race -c -o "${assets}/controller.test" ./internal/controller)
cd "${here}/internal/controller"
rc=0
for c in typedinformer controller-runtime; do
	start=$(date +%s)
	echo "operator: the suite on OPERATOR_CACHE=${c}"
	if OPERATOR_CACHE="${c}" "${assets}/controller.test" -test.count=1 -test.timeout=5m "$@"; then
		echo "operator: OPERATOR_CACHE=${c} passed in $(($(date +%s) - start)) s"
	else
		echo "operator: OPERATOR_CACHE=${c} FAILED" >&2
		rc=1
	fi
done
exit "${rc}"

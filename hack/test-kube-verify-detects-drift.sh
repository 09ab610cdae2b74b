#!/usr/bin/env bash
# Proves that `hack/kube-codegen.sh verify` catches every way kube/ can go
# stale, on a scratch copy of kube/ (nothing in this checkout is modified):
#   1. a generated file edited by hand      -> exit 1 naming it
#   2. a generated file missing             -> exit 1 naming it
#   3. a stale generated file no type makes -> exit 1 naming it
#   4. doc.go stating another version       -> exit 1 naming doc.go
#   5. update brings verify back to 0
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "${SCRATCH}"' EXIT
cp -a "${ROOT}/kube" "${SCRATCH}/kube"
export KUBE_DIR="${SCRATCH}/kube"
(cd "${KUBE_DIR}" && go mod edit -replace "github.com/typedinformer/typedinformer=${ROOT}")
export INFORMER_GEN="${SCRATCH}/informer-gen"
(cd "${ROOT}" && go build -o "${INFORMER_GEN}" ./cmd/informer-gen)

expect_stale() { # $1: what must appear in verify's output
  local out rc=0
  out=$("${ROOT}/hack/kube-codegen.sh" verify 2>&1) || rc=$?
  if [[ ${rc} -ne 1 ]]; then
    echo "FAIL: verify exited ${rc}, want 1; output:"; echo "${out}"; exit 1
  fi
  if ! grep -qF -- "$1" <<<"${out}"; then
    echo "FAIL: verify output does not name $1:"; echo "${out}"; exit 1
  fi
  echo "ok: verify exits 1 and names $1"
}

"${ROOT}/hack/kube-codegen.sh" verify >/dev/null

echo '// edited by hand' >>"${KUBE_DIR}/informers/core/v1/pod.go"
expect_stale "informers/core/v1/pod.go"
rm "${KUBE_DIR}/listers/apps/v1/deployment.go"
expect_stale "listers/apps/v1/deployment.go"
cp "${KUBE_DIR}/informers/core/v1/node.go" "${KUBE_DIR}/informers/core/v1/widget.go"
expect_stale "informers/core/v1/widget.go"
sed -i 's/^const APIVersion = .*/const APIVersion = "v0.1.0"/' "${KUBE_DIR}/doc.go"
expect_stale "kube/doc.go"

"${ROOT}/hack/kube-codegen.sh" update >/dev/null
"${ROOT}/hack/kube-codegen.sh" verify
echo "ok: update brings verify back to 0"

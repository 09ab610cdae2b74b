#!/usr/bin/env bash
# Proves the verify/generate loop on a scratch copy of this repository:
#   1. edit an API type           -> verify-codegen.sh exits 1 naming the stale file
#   2. add a new +genclient type  -> verify exits 1 naming the missing informer and lister
#   3. run update-codegen.sh      -> verify exits 0
# Nothing in this checkout is modified.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAIN_ROOT=$(cd "${ROOT}/../.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "${SCRATCH}"' EXIT
"${ROOT}/hack/scratch-copy.sh" "${SCRATCH}"
cd "${SCRATCH}"
export TYPEDINFORMER_ROOT="${MAIN_ROOT}"

expect_stale() { # $1: what must appear in verify's output
  local out rc=0
  out=$(hack/verify-codegen.sh 2>&1) || rc=$?
  if [[ ${rc} -ne 1 ]]; then
    echo "FAIL: verify exited ${rc}, want 1; output:"; echo "${out}"; exit 1
  fi
  if ! grep -qF -- "$1" <<<"${out}"; then
    echo "FAIL: verify output does not name $1:"; echo "${out}"; exit 1
  fi
  echo "ok: verify exits 1 and names $1"
}

# 1. A new map field changes the deepcopy.
sed -i 's|^\tClassName string `json:"className,omitempty"`|&\n\tLabels map[string]string `json:"labels,omitempty"`|' apis/samples/v1alpha1/types.go
expect_stale "apis/samples/v1alpha1/zz_generated.deepcopy.go"

# 2. A new type needs an informer and a lister.
cat >> apis/samples/v1alpha1/types.go <<'GO'

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Bar is added by this check.
type Bar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BarList is a list of Bars.
type BarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Bar `json:"items"`
}
GO
expect_stale "informers/externalversions/samples/v1alpha1/bar.go"
expect_stale "listers/samples/v1alpha1/bar.go"

# 3. Regenerating fixes it, and the result builds.
hack/update-codegen.sh >/dev/null
hack/verify-codegen.sh
go build ./...
echo "ok: update-codegen.sh brings verify back to 0"

#!/usr/bin/env bash
# Fails (exit 1, with a diff) when a generated file of this repository is out
# of date, missing or stale. The clientset, apply configurations, informers
# and listers are checked by `informer-gen verify`; deepcopy is regenerated in
# a scratch copy of the repository and compared. Writes nothing here.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
source hack/codegen-lib.sh

SCRATCH=$(mktemp -d)
trap 'rm -rf "${SCRATCH}"' EXIT

# The copy's go.mod points at the main module through a relative replace;
# make it absolute so the copy builds the same generators from anywhere.
MAIN_ROOT=${TYPEDINFORMER_ROOT:-$(cd "${ROOT}/../.." && pwd)}
cp -a "${ROOT}/." "${SCRATCH}/"
(
  cd "${SCRATCH}"
  go mod edit -replace "github.com/typedinformer/typedinformer=${MAIN_ROOT}"
  codegen::deepcopy
) >/dev/null

rc=0
for gv in "${GROUP_VERSIONS[@]}"; do
  f="apis/${gv}/zz_generated.deepcopy.go"
  diff -u --label "a/${f}" --label "b/${f}" "${ROOT}/${f}" "${SCRATCH}/${f}" 2>&1 || rc=1
done
codegen::client verify || rc=1

if [[ ${rc} -ne 0 ]]; then
  echo "generated code is out of date: run hack/update-codegen.sh (or make generate)" >&2
fi
exit "${rc}"

#!/usr/bin/env bash
# Fails (exit 1, with a diff) when a generated file of this repository is out
# of date, missing or stale: `informer-gen verify` checks the deepcopy files,
# the clientset, apply configurations, informers and listers. Writes
# nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
source hack/codegen-lib.sh

rc=0
codegen::helpers verify || rc=1
codegen::client verify || rc=1

if [[ ${rc} -ne 0 ]]; then
  echo "generated code is out of date: run hack/update-codegen.sh (or make generate)" >&2
fi
exit "${rc}"

#!/usr/bin/env bash
# Fails (exit 1, with a diff) when a generated file of this repository is out
# of date, missing or stale: one `informer-gen verify` run
# (typedinformer::codegen::gen_all) checks the deepcopy and register files,
# the clientset, apply configurations, informers and listers. Writes
# nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
source hack/codegen-lib.sh

if ! codegen::all verify; then
  echo "generated code is out of date: run hack/update-codegen.sh (or make generate)" >&2
  exit 1
fi

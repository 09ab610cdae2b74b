#!/usr/bin/env bash
# scratch-copy.sh DEST: copies this repository into the directory DEST
# (created if missing) and points every relative replace of the copy's go.mod
# (the main module, the metrics adapter, the kube module) back into this
# checkout, so the copy builds and generates from anywhere. Nothing in this
# checkout is modified.
set -euo pipefail
if [[ $# -ne 1 || -z "$1" ]]; then
  echo "usage: hack/scratch-copy.sh DEST" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$1"
DEST=$(cd "$1" && pwd)
if [[ "${DEST}" == "${ROOT}" ]]; then
  echo "hack/scratch-copy.sh: DEST is this repository itself: ${DEST}" >&2
  exit 2
fi
cp -a "${ROOT}/." "${DEST}/"
cd "${DEST}"
while read -r mod dir; do
  go mod edit -replace "${mod}=$(cd "${ROOT}/${dir}" && pwd)"
done < <(go mod edit -json | jq -r '.Replace[]? | select(.New.Path | startswith(".")) | "\(.Old.Path) \(.New.Path)"')

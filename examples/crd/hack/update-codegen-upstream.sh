#!/usr/bin/env bash
# update-codegen.sh with upstream's generators instead of typedinformer's:
# k8s.io/code-generator's kube_codegen.sh (the version go.mod requires) runs
# kube::codegen::gen_helpers and kube::codegen::gen_register over apis/ and
# kube::codegen::gen_client with
# exactly the arguments codegen::client gives typedinformer::codegen::gen_client,
# as a CRD repository uses it. It exists to compare the two (the bench's
# gen_client rows, the corpus' API comparison) and rewrites pkg/generated
# with upstream's output, so run it only in a copy (hack/scratch-copy.sh).
# kube_codegen.sh installs the generators into $GOBIN (default: GOPATH/bin).
# Arguments name the steps to run, "helpers" (gen_helpers and gen_register)
# and "client" (default: both).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh
source "$(go list -m -f '{{.Dir}}' k8s.io/code-generator)/kube_codegen.sh"

typedinformer::codegen::gen_client() { kube::codegen::gen_client "$@"; }

steps=" ${*:-helpers client} "
for step in ${steps}; do
  case "${step}" in
    helpers|client) ;;
    *) echo "update-codegen-upstream.sh: unknown step ${step} (want helpers or client)" >&2; exit 2 ;;
  esac
done
if [[ "${steps}" == *" helpers "* ]]; then
  kube::codegen::gen_helpers --boilerplate "${HEADER}" ./apis
  kube::codegen::gen_register --boilerplate "${HEADER}" ./apis
fi
if [[ "${steps}" == *" client "* ]]; then
  codegen::client generate
fi

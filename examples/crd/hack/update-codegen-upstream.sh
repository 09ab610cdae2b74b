#!/usr/bin/env bash
# update-codegen.sh with upstream's generators instead of typedinformer's:
# k8s.io/code-generator's kube_codegen.sh (the version go.mod requires) runs
# kube::codegen::gen_helpers over apis/ and kube::codegen::gen_client with
# exactly the arguments codegen::client gives typedinformer::codegen::gen_client,
# as a CRD repository uses it. It exists to compare the two (the bench's
# gen_client rows, the corpus' API comparison) and rewrites pkg/generated
# with upstream's output, so run it only in a copy (hack/scratch-copy.sh).
# kube_codegen.sh installs the generators into $GOBIN (default: GOPATH/bin).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh
source "$(go list -m -f '{{.Dir}}' k8s.io/code-generator)/kube_codegen.sh"

typedinformer::codegen::gen_client() { kube::codegen::gen_client "$@"; }

kube::codegen::gen_helpers --boilerplate "${HEADER}" ./apis
codegen::client generate

#!/usr/bin/env bash
# Regenerates every generated file of this repository: deepcopy
# (code-generator's deepcopy-gen), then the clientset, apply configurations,
# listers and informers in one typedinformer informer-gen run
# (typedinformer::codegen::gen_client, kube_codegen.sh's gen_client with its
# arguments). The generators are pinned in go.mod as tool dependencies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh

codegen::deepcopy
codegen::client generate

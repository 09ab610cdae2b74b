#!/usr/bin/env bash
# Regenerates every generated file of this repository with typedinformer's
# informer-gen alone: deepcopy (typedinformer::codegen::gen_helpers,
# kube_codegen.sh's gen_helpers with its arguments), then the clientset,
# apply configurations, listers and informers in one run
# (typedinformer::codegen::gen_client, kube_codegen.sh's gen_client with its
# arguments). The generator is pinned in go.mod as a tool dependency.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh

codegen::helpers generate
codegen::client generate

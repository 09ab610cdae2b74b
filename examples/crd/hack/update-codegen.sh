#!/usr/bin/env bash
# Regenerates every generated file of this repository with typedinformer's
# informer-gen alone, in one run (typedinformer::codegen::gen_all, the
# arguments of kube_codegen.sh's gen_helpers, gen_register and gen_client
# together): deepcopy, register, the clientset, apply configurations,
# listers and informers. The generator is pinned in go.mod as a tool
# dependency.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh

codegen::all generate

#!/usr/bin/env bash
# Regenerates every generated file of this repository: deepcopy, the typed
# clientset (code-generator), informers and listers (typedinformer's
# informer-gen). The generators are pinned in go.mod as tool dependencies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source hack/codegen-lib.sh

codegen::deepcopy
codegen::clientset
codegen::informers generate

#!/usr/bin/env bash
# Regenerates api/v1alpha1/zz_generated.deepcopy.go (the project's
# informer-gen, --deepcopy-only; a tool of this module) and
# config/crd/bases (controller-gen from the Go module proxy, at
# CONTROLLER_TOOLS_VERSION). Commit what it writes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${CONTROLLER_TOOLS_VERSION:=v0.23.0}"

go tool informer-gen --deepcopy-only --output-file zz_generated.deepcopy.go \
	--go-header-file hack/boilerplate.go.txt ./api/...
go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}" \
	crd paths=./api/... output:crd:artifacts:config=config/crd/bases

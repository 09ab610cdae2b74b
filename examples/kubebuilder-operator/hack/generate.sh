#!/usr/bin/env bash
# Regenerates api/v1alpha1/zz_generated.deepcopy.go (the project's
# informer-gen, --deepcopy-only; a tool of this module) and
# config/crd/bases (controller-gen from the Go module proxy, at
# CONTROLLER_TOOLS_VERSION). Commit what it writes.
#
# hack/generate.sh --verify writes nothing: it fails (exit 1, with a diff)
# when either is out of date.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${CONTROLLER_TOOLS_VERSION:=v0.23.0}"
mode=generate
case "${1:-}" in
	"") ;;
	--verify) mode=verify ;;
	*) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

go tool informer-gen "${mode}" --deepcopy-only --output-file zz_generated.deepcopy.go \
	--go-header-file hack/boilerplate.go.txt ./api/...

crd_dir=config/crd/bases
if [ "${mode}" = verify ]; then
	crd_dir="$(mktemp -d)"
	trap 'rm -rf "${crd_dir}"' EXIT
fi
go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}" \
	crd paths=./api/... output:crd:artifacts:config="${crd_dir}"
if [ "${mode}" = verify ] && ! diff -ru config/crd/bases "${crd_dir}"; then
	echo "generate.sh: config/crd/bases is out of date; run hack/generate.sh" >&2
	exit 1
fi

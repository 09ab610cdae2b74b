#!/usr/bin/env bash
# Regenerates before/generated: the informers and listers of the Foo API
# (examples/crd/apis/samples/v1alpha1) written by upstream informer-gen and
# lister-gen v0.37.2, as a client-go project has them before it migrates.
# The clientset is examples/crd's (client-gen output, unchanged by a port).
# The generators are pinned in go.mod as tool dependencies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MODULE=github.com/typedinformer/typedinformer/examples/migration
CRD=github.com/typedinformer/typedinformer/examples/crd
HEADER=hack/boilerplate.go.txt
OUT=before/generated

rm -rf "${OUT}"
go tool lister-gen --go-header-file "${HEADER}" \
  --output-dir "${OUT}/listers" \
  --output-pkg "${MODULE}/${OUT}/listers" \
  "${CRD}/apis/samples/v1alpha1"
go tool informer-gen --go-header-file "${HEADER}" \
  --output-dir "${OUT}/informers" \
  --output-pkg "${MODULE}/${OUT}/informers" \
  --versioned-clientset-package "${CRD}/pkg/generated/clientset/versioned" \
  --listers-package "${MODULE}/${OUT}/listers" \
  "${CRD}/apis/samples/v1alpha1"

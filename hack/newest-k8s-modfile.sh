#!/usr/bin/env bash
# Writes a copy of the main module's go.mod/go.sum into DIR with k8s.io/api
# and k8s.io/apimachinery raised to VERSION, for
#   go test -modfile=DIR/go.mod ./...
# go.mod itself requires the oldest supported Kubernetes minor, so that the
# runtime does not drag its users forward; this tests the newest one.
# Usage: hack/newest-k8s-modfile.sh VERSION DIR
set -euo pipefail
version=${1:?usage: $0 VERSION DIR}
dir=${2:?usage: $0 VERSION DIR}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p "${dir}"
cp go.mod "${dir}/go.mod"
cp go.sum "${dir}/go.sum"
go get -modfile="${dir}/go.mod" "k8s.io/api@${version}" "k8s.io/apimachinery@${version}"
go mod tidy -modfile="${dir}/go.mod"
got=$(go list -modfile="${dir}/go.mod" -m -f '{{.Version}}' k8s.io/apimachinery)
if [[ "${got}" != "${version}" ]]; then
  echo "newest-k8s-modfile: k8s.io/apimachinery resolved to ${got}, want ${version}" >&2
  exit 1
fi

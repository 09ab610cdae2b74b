#!/usr/bin/env bash
# Regenerates or checks kube/: typed informers and listers for every k8s.io/api
# group-version, written by this repository's informer-gen over client-go's
# kubernetes.Interface, laid out as k8s.io/client-go/informers and
# k8s.io/client-go/listers are.
#
#   hack/kube-codegen.sh update [VERSION]  regenerate; with VERSION (v0.38.0)
#                                          first move kube/go.mod's k8s.io/api,
#                                          apimachinery and client-go to it
#   hack/kube-codegen.sh verify            exit 1 with a diff when kube/ is not
#                                          what informer-gen writes today for the
#                                          k8s.io/api in kube/go.mod, or when
#                                          doc.go or README.md state another
#                                          version; writes nothing
#
# KUBE_DIR (default: kube/ of this checkout) names the module to work on;
# INFORMER_GEN names an informer-gen binary to use instead of building this
# checkout's.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUBE=${KUBE_DIR:-${ROOT}/kube}
MODULE=github.com/typedinformer/typedinformer/kube
HEADER=${ROOT}/hack/boilerplate.go.txt
# The plural exceptions Kubernetes gives its own generators for client-go.
PLURALS=Endpoints:Endpoints,ResourceClaimParameters:ResourceClaimParameters,ResourceClassParameters:ResourceClassParameters
# The modules whose versions move together and must agree.
STAGING=(k8s.io/api k8s.io/apimachinery k8s.io/client-go)

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mode=${1:-}
case "${mode}" in
  update) version=${2:-} ;;
  verify) [[ $# -eq 1 ]] || usage ;;
  *) usage ;;
esac
if [[ -n "${version:-}" && ! "${version}" =~ ^v0\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "kube-codegen: version ${version} is not a k8s.io/api module version such as v0.37.2" >&2
  exit 2
fi

GEN=${INFORMER_GEN:-}
if [[ -z "${GEN}" ]]; then
  BIN=$(mktemp -d)
  trap 'rm -rf "${BIN}"' EXIT
  GEN=${BIN}/informer-gen
  (cd "${ROOT}" && go build -o "${GEN}" ./cmd/informer-gen)
fi

informer_gen() { # $1: generate or verify
  (cd "${KUBE}" && "${GEN}" "$1" \
    --go-header-file "${HEADER}" \
    --output-dir informers \
    --output-pkg "${MODULE}/informers" \
    --single-directory \
    --listers-package "${MODULE}/listers" \
    --versioned-clientset-package k8s.io/client-go/kubernetes \
    --plural-exceptions "${PLURALS}" \
    k8s.io/api/...)
}

# module_version prints the version kube/go.mod requires of module $1.
module_version() {
  (cd "${KUBE}" && go list -m -f '{{.Version}}' "$1")
}

# stated_versions prints every version doc.go and README.md state, one per
# line, prefixed by the file that states it.
stated_versions() {
  sed -n 's/^const APIVersion = "\(.*\)"$/doc.go \1/p' "${KUBE}/doc.go"
  sed -n 's/^Generated from `k8s.io\/api` \(v[^ ]*\)\.$/README.md \1/p' "${KUBE}/README.md"
}

if [[ "${mode}" == update ]]; then
  if [[ -n "${version}" ]]; then
    args=()
    for m in "${STAGING[@]}"; do args+=("${m}@${version}"); done
    (cd "${KUBE}" && go get "${args[@]}")
  fi
  informer_gen generate
  (cd "${KUBE}" && go mod tidy)
  api=$(module_version k8s.io/api)
  sed -i "s/^const APIVersion = \".*\"$/const APIVersion = \"${api}\"/" "${KUBE}/doc.go"
  sed -i "s/^Generated from \`k8s.io\/api\` v[^ ]*\.$/Generated from \`k8s.io\/api\` ${api}./" "${KUBE}/README.md"
  echo "kube/ regenerated from k8s.io/api ${api}"
  exit 0
fi

rc=0
informer_gen verify || rc=1
api=$(module_version k8s.io/api)
for m in "${STAGING[@]:1}"; do
  v=$(module_version "${m}")
  if [[ "${v}" != "${api}" ]]; then
    echo "kube/go.mod: ${m} ${v} is not k8s.io/api's ${api}: run hack/kube-codegen.sh update ${api}" >&2
    rc=1
  fi
done
stated=$(stated_versions)
for f in doc.go README.md; do
  if ! grep -qxF "${f} ${api}" <<<"${stated}"; then
    echo "kube/${f}: does not state k8s.io/api ${api}, the version in kube/go.mod (stated: $(grep "^${f} " <<<"${stated}" | cut -d' ' -f2- || true))" >&2
    rc=1
  fi
done
if [[ ${rc} -ne 0 ]]; then
  echo "kube/ is out of date: run make kube (hack/kube-codegen.sh update)" >&2
fi
exit "${rc}"

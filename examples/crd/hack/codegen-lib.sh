# Shared by update-codegen.sh and verify-codegen.sh: the generator invocations
# for this repository, so the two scripts can never disagree. Source it, then
# call the functions with the repository root as the working directory.

source "$(dirname "${BASH_SOURCE[0]}")/typedinformer-codegen.sh"

MODULE=github.com/typedinformer/typedinformer/examples/crd
HEADER=hack/boilerplate.go.txt
# The OpenAPI v2 definitions of our API types (what openapi-gen's
# models-schema would print), from which the apply configurations' schema
# and Extract functions come.
# group/version packages under apis/, relative to it.
GROUP_VERSIONS=(samples/v1alpha1 ops/v1)

# codegen::helpers generate|verify — kube_codegen.sh's gen_helpers for our
# own API (typedinformer-codegen.sh): zz_generated.deepcopy.go in every
# package under apis/ tagged +k8s:deepcopy-gen, written by informer-gen.
codegen::helpers() {
  local verify=()
  [[ "$1" == verify ]] && verify=(--verify)
  typedinformer::codegen::gen_helpers "${verify[@]+"${verify[@]}"}" --boilerplate "${HEADER}" ./apis
}

# codegen::all generate|verify — every generated file of this repository in
# one informer-gen run (typedinformer::codegen::gen_all, typedinformer-codegen.sh):
# what codegen::helpers, codegen::register and codegen::client write, with
# their arguments together.
codegen::all() {
  local verify=()
  [[ "$1" == verify ]] && verify=(--verify)
  typedinformer::codegen::gen_all "${verify[@]+"${verify[@]}"}" \
    --with-watch --with-applyconfig \
    --applyconfig-openapi-schema hack/openapi-schema.json \
    --output-dir pkg/generated \
    --output-pkg "${MODULE}/pkg/generated" \
    --boilerplate "${HEADER}" \
    --plural-exceptions "" \
    ./apis
}

# codegen::register generate|verify — kube_codegen.sh's gen_register for our
# own API (typedinformer-codegen.sh): zz_generated.register.go in every
# package under apis/ with +groupName, written by informer-gen.
codegen::register() {
  local verify=()
  [[ "$1" == verify ]] && verify=(--verify)
  typedinformer::codegen::gen_register "${verify[@]+"${verify[@]}"}" --boilerplate "${HEADER}" ./apis
}

# codegen::client generate|verify — kube_codegen.sh's gen_client for our
# own API, in one informer-gen run (typedinformer-codegen.sh): the clientset
# and its fake, the apply configurations, the listers and the informers under
# pkg/generated. Informers and listers of the built-in types come from the
# project's kube module, generated once for all of k8s.io/api.
codegen::client() {
  local mode=$1 rc=0 verify=()
  [[ "${mode}" == verify ]] && verify=(--verify)
  typedinformer::codegen::gen_client "${verify[@]+"${verify[@]}"}" \
    --with-watch --with-applyconfig \
    --applyconfig-openapi-schema hack/openapi-schema.json \
    --output-dir pkg/generated \
    --output-pkg "${MODULE}/pkg/generated" \
    --boilerplate "${HEADER}" \
    --plural-exceptions "" \
    ./apis || rc=$?
  return "${rc}"
}

# Shared by update-codegen.sh and verify-codegen.sh: the generator invocations
# for this repository, so the two scripts can never disagree. Source it, then
# call the functions with the repository root as the working directory.

MODULE=github.com/typedinformer/typedinformer/examples/crd
HEADER=hack/boilerplate.go.txt
# group/version packages under apis/, relative to it.
GROUP_VERSIONS=(samples/v1alpha1 ops/v1)

codegen::deepcopy() {
  local pkgs=()
  for gv in "${GROUP_VERSIONS[@]}"; do pkgs+=("./apis/${gv}"); done
  go tool deepcopy-gen --go-header-file "${HEADER}" --output-file zz_generated.deepcopy.go "${pkgs[@]}"
}

codegen::clientset() {
  rm -rf pkg/generated/clientset
  go tool client-gen --go-header-file "${HEADER}" \
    --clientset-name versioned \
    --input-base "${MODULE}/apis" \
    --input "$(IFS=,; echo "${GROUP_VERSIONS[*]}")" \
    --output-dir pkg/generated/clientset \
    --output-pkg "${MODULE}/pkg/generated/clientset"
}

# codegen::informers generate|verify — informers and listers for our own
# API and, with client-go's clientset, for the built-in core/v1 API.
codegen::informers() {
  local mode=$1 rc=0
  go tool informer-gen "${mode}" --go-header-file "${HEADER}" \
    --output-dir pkg/generated \
    --output-pkg "${MODULE}/pkg/generated" \
    --versioned-clientset-package "${MODULE}/pkg/generated/clientset/versioned" \
    ./apis/... || rc=$?
  go tool informer-gen "${mode}" --go-header-file "${HEADER}" \
    --output-dir pkg/kube \
    --output-pkg "${MODULE}/pkg/kube" \
    --versioned-clientset-package k8s.io/client-go/kubernetes \
    k8s.io/api/core/v1 || rc=$?
  return "${rc}"
}

#!/usr/bin/env bash
# Proves the README's recipe for using a local checkout: runs its shell block,
# as written but for the checkout's path, in scratch modules, with go.mod
# read-only for builds (as for any user), in each order a user may take:
#   1. the recipe, then code importing runtime/ and kube/ (its lister of Pods,
#      not the informers, whose clientset takes minutes to compile cold)
#                                                          -> go build works
#   2. that code, then the recipe                          -> go build works
#   3. the recipe, go mod tidy before the code imports kube/, then the code:
#      go build fails ("is replaced but not required" or "updates to go.mod
#      needed"), and the tidy the README names as the fix makes it build
# Modules come from the module cache or GOPROXY; nothing in this checkout is
# modified.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "${SCRATCH}"' EXIT
export GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=readonly"

# The README's block: the fenced sh block that sets CO, with CO pointing here.
awk '/^```sh$/ { block = ""; inblock = 1; next }
     inblock && /^```$/ { if (block ~ /CO=\.\.\/typedinformer/) { printf "%s", block; found = 1; exit } inblock = 0; next }
     inblock { block = block $0 "\n" }
     END { if (!found) exit 1 }' "${ROOT}/README.md" >"${SCRATCH}/recipe.sh" || {
  echo "FAIL: README.md has no sh block setting CO=../typedinformer" >&2
  exit 1
}
sed -i "s|^CO=\.\./typedinformer .*$|CO='${ROOT}'|" "${SCRATCH}/recipe.sh"
grep -q "^CO='${ROOT}'$" "${SCRATCH}/recipe.sh" || {
  echo "FAIL: the README's recipe does not start with CO=../typedinformer" >&2
  exit 1
}

new_module() { # $1: directory
  mkdir -p "$1"
  (cd "$1" && go mod init example.com/widgets >/dev/null 2>&1)
}

write_code() { # $1: module directory
  cat >"$1/main.go" <<'EOF'
package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/kube"
	corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

func main() {
	fmt.Println(kube.APIVersion, corelisters.NewPodLister(cache.NewIndexer(cache.Indexers[*corev1.Pod]{})) != nil)
}
EOF
}

recipe() { # $1: module directory
  (cd "$1" && bash -euo pipefail "${SCRATCH}/recipe.sh" >/dev/null)
}

build() { # $1: module directory, $2: what is being checked
  local out
  if ! out=$(cd "$1" && go build ./... 2>&1); then
    echo "FAIL: $2: go build:"; echo "${out}"; exit 1
  fi
  echo "ok: $2"
}

m=${SCRATCH}/recipe-first
new_module "${m}"
recipe "${m}"
write_code "${m}"
build "${m}" "the recipe, then code importing kube/: builds"

m=${SCRATCH}/code-first
new_module "${m}"
write_code "${m}"
recipe "${m}"
build "${m}" "code importing kube/, then the recipe: builds"

m=${SCRATCH}/tidy-first
new_module "${m}"
recipe "${m}"
(cd "${m}" && go mod tidy >/dev/null 2>&1)
write_code "${m}"
if out=$(cd "${m}" && go build ./... 2>&1); then
  echo "FAIL: a tidy before kube/ is imported no longer drops its requirement; update the README"; exit 1
fi
if ! grep -qE "is replaced but not required|updates to go.mod needed" <<<"${out}"; then
  echo "FAIL: after an early tidy, go build fails otherwise than the README says:"; echo "${out}"; exit 1
fi
(cd "${m}" && go mod tidy >/dev/null 2>&1)
build "${m}" "an early tidy, code importing kube/, tidy again: builds"

#!/usr/bin/env bash
# Build (or reuse) the etcd and kube-apiserver binaries the e2e suite runs against.
#
# Usage: hack/kube/build.sh [etcd|kube-apiserver|all]   (default: all)
#
# Binaries are cached by version outside the repository, in
#   ${TYPEDINFORMER_CACHE:-$HOME/.cache/typedinformer}/bin/<name>-<version>
# and reused by every later run on the machine. Each binary is built from the Go module proxy in a
# throwaway module inside a temp dir, then renamed into place atomically, so a cached path is either
# absent or complete. A per-binary lock (flock, or a mkdir lock where flock is missing) makes
# concurrent runs wait for one build instead of building twice.
#
# Needs only bash, coreutils and Go with a reachable module proxy (CGO is off, so no C toolchain).
# Prints "<name>=<path>" for every binary on stdout; progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.sh
. "${here}/versions.sh"

bindir="${TYPEDINFORMER_CACHE}/bin"
lockdir="${TYPEDINFORMER_CACHE}/lock"
tmproot="${TYPEDINFORMER_CACHE}/tmp"
mkdir -p "${bindir}" "${lockdir}" "${tmproot}"

log() { echo "build.sh: $*" >&2; }

# with_lock NAME CMD...: run CMD holding the lock NAME.
with_lock() {
	local name="$1"
	shift
	if command -v flock >/dev/null 2>&1; then
		(
			exec 9>"${lockdir}/${name}.lock"
			if ! flock -n 9; then
				log "waiting for another build of ${name}"
				flock 9
			fi
			"$@"
		)
		return
	fi
	# mkdir is atomic; a lock whose owner died is taken over.
	local d="${lockdir}/${name}.d"
	until mkdir "${d}" 2>/dev/null; do
		local owner
		owner="$(cat "${d}/pid" 2>/dev/null || true)"
		if [ -n "${owner}" ] && ! kill -0 "${owner}" 2>/dev/null; then
			log "removing stale lock of dead pid ${owner} for ${name}"
			rm -rf "${d}"
			continue
		fi
		sleep 2
	done
	echo $$ >"${d}/pid"
	local rc=0
	"$@" || rc=$?
	rm -rf "${d}"
	return "${rc}"
}

# go_env: the environment every build uses: module mode, no workspace, no cgo.
go_env() {
	env GOWORK=off GO111MODULE=on CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" "$@"
}

build_etcd() {
	local out="$1" work="$2"
	cd "${work}"
	go_env go mod init typedinformer.local/etcdbuild >/dev/null 2>&1
	cat >tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
	go_env go mod edit -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
	go_env go mod tidy
	go_env go build -trimpath -ldflags="-s -w" -o "${work}/etcd.bin" go.etcd.io/etcd/server/v3
	mv -f "${work}/etcd.bin" "${out}"
}

build_kube_apiserver() {
	local out="$1" work="$2"
	cd "${work}"
	go_env go mod init typedinformer.local/kubebuild >/dev/null 2>&1
	cat >tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
	# k8s.io/kubernetes points every staging module at ./staging/src; pin each to its published release.
	local gomod
	gomod="$(go_env go list -m -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
	[ -n "${gomod}" ] || { log "cannot resolve k8s.io/kubernetes@${KUBE_VERSION}"; return 1; }
	local args=(-require="k8s.io/kubernetes@${KUBE_VERSION}")
	local staging
	staging="$(go_env go mod edit -json "${gomod}" | sed -n 's/.*"Path": "\(k8s\.io\/[^"]*\)".*/\1/p' | sort -u)"
	local m
	for m in ${staging}; do
		if grep -q "^[[:space:]]*${m//./\\.} => \./staging/" "${gomod}"; then
			args+=(-replace="${m}=${m}@${KUBE_STAGING_VERSION}")
		fi
	done
	go_env go mod edit "${args[@]}"
	go_env go mod tidy
	local v="k8s.io/component-base/version"
	local minor="${KUBE_VERSION#v1.}"
	minor="${minor%%.*}"
	go_env go build -trimpath -o "${work}/kube-apiserver.bin" \
		-ldflags="-s -w -X ${v}.gitVersion=${KUBE_VERSION} -X ${v}.gitMajor=1 -X ${v}.gitMinor=${minor} -X ${v}.gitTreeState=clean" \
		k8s.io/kubernetes/cmd/kube-apiserver
	mv -f "${work}/kube-apiserver.bin" "${out}"
}

# ensure NAME VERSION BUILDFUNC: print the cached path of NAME, building it first when missing.
ensure() {
	local name="$1" version="$2" fn="$3"
	local out="${bindir}/${name}-${version}"
	if [ ! -x "${out}" ]; then
		with_lock "${name}-${version}" build_locked "${name}" "${version}" "${fn}" "${out}"
	fi
	echo "${name}=${out}"
}

build_locked() {
	local name="$1" version="$2" fn="$3" out="$4"
	if [ -x "${out}" ]; then
		return 0 # another run built it while this one waited for the lock
	fi
	local work start
	# Holding the lock, anything left by an interrupted build of this binary is stale.
	rm -rf "${tmproot}/${name}-${version}".* "${out}".tmp.*
	work="$(mktemp -d "${tmproot}/${name}-${version}.XXXXXX")"
	start="$(date +%s)"
	log "building ${name} ${version} (cold kube-apiserver takes ~11 min on 2 cores)"
	local rc=0
	# The temp file sits in the cache dir, so the final mv is a same-filesystem atomic rename.
	("${fn}" "${out}.tmp.$$" "${work}") >&2 || rc=$?
	if [ "${rc}" -eq 0 ]; then
		chmod +x "${out}.tmp.$$"
		mv -f "${out}.tmp.$$" "${out}"
		log "built ${name} ${version} in $(($(date +%s) - start))s: ${out}"
	else
		log "building ${name} ${version} failed (exit ${rc})"
	fi
	rm -rf "${work}" "${out}.tmp.$$"
	return "${rc}"
}

what="${1:-all}"
case "${what}" in
etcd) ensure etcd "${ETCD_VERSION}" build_etcd ;;
kube-apiserver) ensure kube-apiserver "${KUBE_VERSION}" build_kube_apiserver ;;
all)
	# Build both at once: etcd finishes long before the apiserver and the two share the build cache.
	tmp_out="$(mktemp)"
	trap 'rm -f "${tmp_out}"' EXIT
	ensure etcd "${ETCD_VERSION}" build_etcd >"${tmp_out}" &
	etcd_pid=$!
	ensure kube-apiserver "${KUBE_VERSION}" build_kube_apiserver
	wait "${etcd_pid}"
	cat "${tmp_out}"
	;;
*)
	echo "usage: $0 [etcd|kube-apiserver|all]" >&2
	exit 2
	;;
esac

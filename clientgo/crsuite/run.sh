#!/usr/bin/env bash
# Runs controller-runtime's own pkg/cache suite (Ginkgo specs and Go tests)
# twice in one go against the project's kube-apiserver and etcd: once as
# released (client-go's informers) and once with the cache's default informer
# constructor switched to clientgo.NewSharedIndexInformer. Nothing of
# controller-runtime is kept in this repository: the module is downloaded,
# copied to a temporary directory and patched there.
#
# It prints pass/fail/skip counts of both sides (specs that install their own
# NewInformer, and so never run ours, counted apart) and fails when a spec or
# test passes with client-go's informers but not with ours, unless it is
# listed in excused.txt (each entry is explained in docs/controller-runtime.md).
#
# Environment: CR_VERSION (default v0.25.3), CRSUITE_KEEP=1 keeps the
# temporary directory, CRSUITE_SERIAL=1 runs the two sides one after the other.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CR_VERSION=${CR_VERSION:-v0.25.3}
GO=${GO:-go}

# Specs under this container, and these Go tests, set NewInformer themselves.
OWN_NEWINFORMER_CONTAINER="non-blocking get test"
OWN_NEWINFORMER_TESTS='["TestReaderWaitsForCacheSync","TestIndexFieldDoesNotBlock"]'

command -v jq >/dev/null || { echo "crsuite: jq is required" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/crsuite.XXXXXX")
cleanup() {
	if [ "${CRSUITE_KEEP:-}" = 1 ]; then
		echo "crsuite: kept $work"
	else
		chmod -R u+w "$work" 2>/dev/null || true
		rm -rf "$work"
	fi
}
trap cleanup EXIT

src=$(cd "$work" && $GO mod download -json "sigs.k8s.io/controller-runtime@$CR_VERSION" | jq -r .Dir)
[ -d "$src" ] || { echo "crsuite: downloading controller-runtime $CR_VERSION failed" >&2; exit 1; }
cp -r "$src" "$work/cr"
chmod -R u+w "$work/cr"
cr=$work/cr

# The patch: internal.NewInformers falls back to a package variable instead of
# client-go's constructor; two build-tagged files set that variable.
informers_go=$cr/pkg/cache/internal/informers.go
old='newInformer := cache.NewSharedIndexInformer'
grep -qF "$old" "$informers_go" || { echo "crsuite: $informers_go no longer has '$old'; update the patch" >&2; exit 1; }
sed -i "s/$old/newInformer := defaultNewInformer/" "$informers_go"
cat > "$cr/pkg/cache/internal/zz_newinformer_typedinformer.go" <<'GO'
//go:build typedinformer

package internal

import "github.com/typedinformer/typedinformer/clientgo"

var defaultNewInformer = clientgo.NewSharedIndexInformer
GO
cat > "$cr/pkg/cache/internal/zz_newinformer_clientgo.go" <<'GO'
//go:build !typedinformer

package internal

import "k8s.io/client-go/tools/cache"

var defaultNewInformer = cache.NewSharedIndexInformer
GO

(
	cd "$cr"
	$GO mod edit \
		-replace "github.com/typedinformer/typedinformer=$repo" \
		-replace "github.com/typedinformer/typedinformer/clientgo=$repo/clientgo" \
		-require "github.com/typedinformer/typedinformer/clientgo@v0.0.0-00010101000000-000000000000"
	$GO mod tidy
	deps=$($GO list -tags typedinformer -deps ./pkg/cache/)
	grep -qx 'github.com/typedinformer/typedinformer/clientgo' <<<"$deps" ||
		{ echo "crsuite: the patched build does not use the clientgo module" >&2; exit 1; }
	cd pkg/cache
	$GO test -c -o "$work/cache-clientgo.test" .
	$GO test -c -tags typedinformer -o "$work/cache-typedinformer.test" .
)

# envtest finds its binaries by name in KUBEBUILDER_ASSETS.
mkdir -p "$work/assets"
while IFS='=' read -r name path; do
	case "$name" in kube-apiserver | etcd) ln -s "$path" "$work/assets/$name" ;; esac
done < <("$repo/hack/kube/build.sh" all)
[ -x "$work/assets/kube-apiserver" ] && [ -x "$work/assets/etcd" ] ||
	{ echo "crsuite: hack/kube/build.sh all did not name kube-apiserver and etcd" >&2; exit 1; }
export KUBEBUILDER_ASSETS=$work/assets

run_side() {
	local side=$1
	(
		cd "$cr/pkg/cache"
		$GO tool test2json -p cache "$work/cache-$side.test" -test.v=test2json -test.count=1 -test.timeout=20m \
			-ginkgo.no-color -ginkgo.flake-attempts=2 -ginkgo.json-report="$work/$side.ginkgo.json" >"$work/$side.go.json" 2>"$work/$side.stderr"
	) || true
}

start=$(date +%s)
if [ "${CRSUITE_SERIAL:-}" = 1 ]; then
	run_side clientgo
	run_side typedinformer
else
	run_side clientgo &
	p1=$!
	run_side typedinformer &
	p2=$!
	wait "$p1" "$p2"
fi
echo "crsuite: both sides ran in $(($(date +%s) - start)) s"

excused_json=$({ grep -v '^\s*#' "$here/excused.txt" || true; } | sed '/^\s*$/d' | jq -R . | jq -s .)

# One JSON document per side: {specs: {name: state}, tests: {name: state}}.
summarize() {
	local side=$1
	local specs='{}' tests='{}'
	if [ -s "$work/$side.ginkgo.json" ]; then
		specs=$(jq '[.[].SpecReports[] | select(.LeafNodeType == "It")
			| {key: ((.ContainerHierarchyTexts + [.LeafNodeText]) | join(" ")),
			   value: (if .State == "passed" and (.NumAttempts // 1) > 1 then "passed-on-retry" else .State end)}] | from_entries' \
			"$work/$side.ginkgo.json")
	fi
	tests=$(jq -s '[.[] | select(.Test != null and (.Test | contains("/") | not)
		and (.Action == "pass" or .Action == "fail" or .Action == "skip"))
		| {key: .Test, value: (if .Action == "pass" then "passed" elif .Action == "fail" then "failed" else "skipped" end)}]
		| from_entries' "$work/$side.go.json")
	jq -n --argjson s "$specs" --argjson t "$tests" '{specs: $s, tests: $t}'
}
ref=$(summarize clientgo)
ours=$(summarize typedinformer)

jq -n -r --argjson ref "$ref" --argjson ours "$ours" --arg own "$OWN_NEWINFORMER_CONTAINER" \
	--argjson ownTests "$OWN_NEWINFORMER_TESTS" '
def own: contains($own);
def ownTest: . as $k | any($ownTests[]; . == $k);
def count(m; f): [m | to_entries[] | select(.key | f) | .value]
	| {passed: map(select(. == "passed" or . == "passed-on-retry")) | length,
	   retried: map(select(. == "passed-on-retry")) | length,
	   failed: map(select(. == "failed" or . == "panicked" or . == "timedout" or . == "interrupted" or . == "aborted")) | length,
	   skipped: map(select(. == "skipped" or . == "pending")) | length};
def line(lbl; c): "  \(lbl): \(c.passed) passed (\(c.retried) on a second attempt), \(c.failed) failed, \(c.skipped) skipped";
def side(name; r):
	"\(name):",
	line("Ginkgo specs running the default informer"; count(r.specs; own | not)),
	line("Ginkgo specs setting NewInformer themselves"; count(r.specs; own)),
	line("Go tests (besides TestSource, the Ginkgo suite)"; count(r.tests; (ownTest or . == "TestSource") | not)),
	line("Go tests setting NewInformer themselves"; count(r.tests; ownTest));
side("client-go informers (controller-runtime as released)"; $ref),
side("typedinformer clientgo.NewSharedIndexInformer (patched default)"; $ours)'

# Every spec or test that passes with client-go's informers must pass with
# ours, apart from the excused ones; the suite must also have run at all.
verdict=$(jq -n -r --argjson ref "$ref" --argjson ours "$ours" --argjson excused "$excused_json" '
	def ok: . == "passed" or . == "passed-on-retry";
	def regress($a; $b): [$a | to_entries[] | select((.value | ok) and (($b[.key] // "missing") | ok | not)) | .key];
	(regress($ref.specs; $ours.specs) + [regress($ref.tests; $ours.tests)[] | select(. != "TestSource")]) as $r
	| ([$r[] | select(. as $k | any($excused[]; . == $k) | not)]) as $bad
	| ([$r[] | select(. as $k | any($excused[]; . == $k))]) as $exc
	| if ($ref.specs | length) == 0 then "FAIL: the client-go side ran no spec"
	  elif ($ours.specs | length) == 0 then "FAIL: the typedinformer side ran no spec"
	  else
	    ([$exc[] | "excused: \(.)"] + [$bad[] | "REGRESSION: \(.)"] | .[]),
	    (if ($bad | length) > 0 then "FAIL: \($bad | length) spec(s) pass with client-go but not with clientgo.NewSharedIndexInformer" else "OK" end)
	  end')
echo "$verdict"
if ! tail -n1 <<<"$verdict" | grep -qx OK; then
	for side in clientgo typedinformer; do
		echo "--- $side: failing output (last 80 lines of stderr)"
		tail -n 80 "$work/$side.stderr" || true
	done
	CRSUITE_KEEP=1
	exit 1
fi

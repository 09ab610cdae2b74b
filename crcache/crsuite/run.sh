#!/usr/bin/env bash
# Runs controller-runtime's own pkg/cache suite and the read-your-own-writes
# (consistency) tests of its pkg/client (Ginkgo specs and Go tests)
# twice in one go against the project's kube-apiserver and etcd: once as
# released (cache.New) and once with every cache the suite builds made by
# crcache.New instead. Nothing of controller-runtime is kept in this
# repository: the module is downloaded, copied to a temporary directory and
# patched there (its external test packages, cache_test and client_test,
# call newCacheUnderTest wherever they called cache.New; a build-tagged file
# says which one that is).
#
# It prints pass/fail/skip counts of both sides and fails when a spec or test
# passes with controller-runtime's cache but not with ours, unless it is
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

# The patch: the suites' calls of cache.New go through newCacheUnderTest, a
# variable of their external test package that a build-tagged file sets.
patch_suite() {
	local dir=$1 pkg=$2
	shift 2
	local f
	for f in "$@"; do
		grep -q 'cache\.New\b' "$cr/$dir/$f" || { echo "crsuite: $dir/$f no longer calls cache.New; update the patch" >&2; exit 1; }
		sed -i 's/\bcache\.New\b\([(,]\)/newCacheUnderTest\1/g' "$cr/$dir/$f"
	done
	cat > "$cr/$dir/zz_newcache_crcache_test.go" <<GO
//go:build typedinformer

package $pkg

import "github.com/typedinformer/typedinformer/crcache"

var newCacheUnderTest = crcache.New
GO
	cat > "$cr/$dir/zz_newcache_released_test.go" <<GO
//go:build !typedinformer

package $pkg

import "sigs.k8s.io/controller-runtime/pkg/cache"

var newCacheUnderTest = cache.New
GO
}
patch_suite pkg/cache cache_test cache_test.go informer_cache_test.go
# pkg/client: only its read-your-own-writes (consistency) tests build a cache.
patch_suite pkg/client client_test consistency_envtest_test.go

(
	cd "$cr"
	for m in clientgo crcache test/e2e kube examples/crd examples/controller-runtime; do
		$GO mod edit -replace "github.com/typedinformer/typedinformer/$m=$repo/$m"
	done
	$GO mod edit -replace "github.com/typedinformer/typedinformer=$repo" \
		-require "github.com/typedinformer/typedinformer/crcache@v0.0.0-00010101000000-000000000000"
	$GO mod tidy
	for suite in cache client; do
		(
			cd "pkg/$suite"
			$GO test -c -o "$work/$suite-clientgo.test" .
			$GO test -c -tags typedinformer -o "$work/$suite-typedinformer.test" .
		)
	done
)

# envtest finds its binaries by name in KUBEBUILDER_ASSETS.
mkdir -p "$work/assets"
while IFS='=' read -r name path; do
	case "$name" in kube-apiserver | etcd) ln -s "$path" "$work/assets/$name" ;; esac
done < <("$repo/hack/kube/build.sh" all)
[ -x "$work/assets/kube-apiserver" ] && [ -x "$work/assets/etcd" ] ||
	{ echo "crsuite: hack/kube/build.sh all did not name kube-apiserver and etcd" >&2; exit 1; }
export KUBEBUILDER_ASSETS=$work/assets

# run_suite SUITE SIDE [flags]: one suite's test binary of one side, its
# Go test events and Ginkgo report kept in $work.
run_suite() {
	local suite=$1 side=$2
	shift 2
	(
		cd "$cr/pkg/$suite"
		$GO tool test2json -p "$suite" "$work/$suite-$side.test" -test.v=test2json -test.count=1 -test.timeout=20m \
			-ginkgo.no-color -ginkgo.flake-attempts=2 -ginkgo.json-report="$work/$suite-$side.ginkgo.json" "$@" \
			>"$work/$suite-$side.go.json" 2>"$work/$suite-$side.stderr"
	) || true
}

# run_side SIDE: pkg/cache's whole suite, then pkg/client's consistency
# tests (the ConsistentClient specs, which build a cache, and the fake-client
# tests of the same code, which do not).
run_side() {
	run_suite cache "$1"
	run_suite client "$1" -test.run '^(TestClient|TestConsistent)' -ginkgo.focus=ConsistentClient
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
if [ "$(jq length <<<"$excused_json")" -gt 3 ]; then
	echo "crsuite: excused.txt lists more than three specs" >&2
	exit 1
fi

# summarize SUITE SIDE: {specs: {name: state}, tests: {name: state}}; the
# names of pkg/client's specs and tests start with "pkg/client: ", and only
# its ConsistentClient specs count (the others are not focused).
summarize() {
	local suite=$1 side=$2
	local specs='{}' tests='{}' prefix='' container=''
	if [ "$suite" = client ]; then
		prefix='pkg/client: '
		container=ConsistentClient
	fi
	if [ -s "$work/$suite-$side.ginkgo.json" ]; then
		specs=$(jq --arg p "$prefix" --arg c "$container" '[.[].SpecReports[] | select(.LeafNodeType == "It")
			| select($c == "" or .ContainerHierarchyTexts[0] == $c)
			| {key: ($p + ((.ContainerHierarchyTexts + [.LeafNodeText]) | join(" "))),
			   value: (if .State == "passed" and (.NumAttempts // 1) > 1 then "passed-on-retry" else .State end)}] | from_entries' \
			"$work/$suite-$side.ginkgo.json")
	fi
	tests=$(jq -s --arg p "$prefix" '[.[] | select(.Test != null and (.Test | contains("/") | not)
		and (.Action == "pass" or .Action == "fail" or .Action == "skip"))
		| {key: ($p + .Test), value: (if .Action == "pass" then "passed" elif .Action == "fail" then "failed" else "skipped" end)}]
		| from_entries' "$work/$suite-$side.go.json")
	jq -n --argjson s "$specs" --argjson t "$tests" '{specs: $s, tests: $t}'
}
merge() { jq -n --argjson a "$1" --argjson b "$2" '{specs: ($a.specs + $b.specs), tests: ($a.tests + $b.tests)}'; }
ref=$(merge "$(summarize cache clientgo)" "$(summarize client clientgo)")
ours=$(merge "$(summarize cache typedinformer)" "$(summarize client typedinformer)")

# The Go tests that are Ginkgo suites are counted through their specs.
suites='["TestSource","pkg/client: TestClient"]'

jq -n -r --argjson ref "$ref" --argjson ours "$ours" --arg own "$OWN_NEWINFORMER_CONTAINER" \
	--argjson ownTests "$OWN_NEWINFORMER_TESTS" --argjson suites "$suites" '
def client: startswith("pkg/client: ");
def own: contains($own);
def ownTest: . as $k | any($ownTests[]; . == $k);
def suite: . as $k | any($suites[]; . == $k);
def count(m; f): [m | to_entries[] | select(.key | f) | .value]
	| {passed: map(select(. == "passed" or . == "passed-on-retry")) | length,
	   retried: map(select(. == "passed-on-retry")) | length,
	   failed: map(select(. == "failed" or . == "panicked" or . == "timedout" or . == "interrupted" or . == "aborted")) | length,
	   skipped: map(select(. == "skipped" or . == "pending")) | length};
def line(lbl; c): "  \(lbl): \(c.passed) passed (\(c.retried) on a second attempt), \(c.failed) failed, \(c.skipped) skipped";
def side(name; r):
	"\(name):",
	line("pkg/cache Ginkgo specs running the default informer"; count(r.specs; (client | not) and (own | not))),
	line("pkg/cache Ginkgo specs setting NewInformer themselves"; count(r.specs; (client | not) and own)),
	line("pkg/cache Go tests (besides TestSource, the Ginkgo suite)"; count(r.tests; (client | not) and ((ownTest or suite) | not))),
	line("pkg/cache Go tests setting NewInformer themselves"; count(r.tests; (client | not) and ownTest)),
	line("pkg/client ConsistentClient Ginkgo specs"; count(r.specs; client)),
	line("pkg/client consistency Go tests (fake informer, besides TestClient)"; count(r.tests; client and (suite | not)));
side("controller-runtime cache.New (as released)"; $ref),
side("crcache.New (patched)"; $ours)'

# Every spec or test that passes with controller-runtime's cache must pass
# with ours, apart from the excused ones; each suite must also have run at all.
verdict=$(jq -n -r --argjson ref "$ref" --argjson ours "$ours" --argjson excused "$excused_json" --argjson suites "$suites" '
	def ok: . == "passed" or . == "passed-on-retry";
	def regress($a; $b): [$a | to_entries[] | select((.value | ok) and (($b[.key] // "missing") | ok | not)) | .key];
	def ran($r; $client): [$r.specs | keys[] | select(startswith("pkg/client: ") == $client)] | length > 0;
	(regress($ref.specs; $ours.specs) + [regress($ref.tests; $ours.tests)[] | select(. as $k | any($suites[]; . == $k) | not)]) as $r
	| ([$r[] | select(. as $k | any($excused[]; . == $k) | not)]) as $bad
	| ([$r[] | select(. as $k | any($excused[]; . == $k))]) as $exc
	| if (ran($ref; false) | not) then "FAIL: the cache.New side ran no pkg/cache spec"
	  elif (ran($ours; false) | not) then "FAIL: the crcache.New side ran no pkg/cache spec"
	  elif (ran($ref; true) | not) then "FAIL: the cache.New side ran no pkg/client consistency spec"
	  elif (ran($ours; true) | not) then "FAIL: the crcache.New side ran no pkg/client consistency spec"
	  else
	    ([$exc[] | "excused: \(.)"] + [$bad[] | "REGRESSION: \(.)"] | .[]),
	    (if ($bad | length) > 0 then "FAIL: \($bad | length) spec(s) pass with cache.New but not with crcache.New" else "OK" end)
	  end')
echo "$verdict"
if ! tail -n1 <<<"$verdict" | grep -qx OK; then
	for side in clientgo typedinformer; do
		for suite in cache client; do
			echo "--- $suite, $side: failing output (last 80 lines of stderr)"
			tail -n 80 "$work/$suite-$side.stderr" || true
		done
	done
	CRSUITE_KEEP=1
	exit 1
fi

package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// TestCompactionForcesRelist cuts an informer off the network, changes
// objects, compacts etcd past the informer's resourceVersion and lets it
// reconnect: its watch must fail with 410 and it must relist (page by page)
// to exactly the server's objects, with the deletes it missed arriving as
// OnDelete with finalStateUnknown. PodTemplates have no watch cache in this
// cluster, so the informer's watch is served by etcd and sees the
// compaction.
func TestCompactionForcesRelist(t *testing.T) {
	ctx := context.Background()
	c := admin(t)
	label := testLabel(t)
	partition := framework.NewPartition()
	cfg := cluster.AdminConfig()
	cfg.Dial = partition.Dial
	calls := &callLog{}
	inf := newPodTemplateInformer(newClients(t, cfg), "", informerOptions{label: label, calls: calls,
		reflector: cache.ReflectorOptions{PageSize: 10, DisableWatchList: true}}) // the paginated list path
	s := &outage[*podTemplate]{
		watched:    watched[*podTemplate]{label: label, o: podTemplateOps(c, label), inf: inf, start: func() { runInformer(t, inf) }},
		namespaces: testNamespaces(t, c, 2),
	}
	s.prepare(t)
	watchedRV := syncedRV(t, s.inf)
	listsBefore := len(calls.listCalls())

	partition.Cut()
	s.change(t, s.o)
	rev := compactPast(ctx, t, watchedRV)
	if got := s.inf.LastSyncResourceVersion(); got != strconv.FormatInt(watchedRV, 10) {
		t.Fatalf("the cut-off informer moved from resourceVersion %d to %s", watchedRV, got)
	}
	partition.Heal()

	s.verify(t)
	if !calls.sawExpired() {
		t.Errorf("no list or watch failed with 410 after compacting etcd at %d past resourceVersion %d; errors: %v", rev, watchedRV, calls.errors())
	}
	for _, err := range calls.errors() {
		t.Logf("list/watch error after the compaction: %v", err)
	}
	relists := calls.listCalls()[listsBefore:]
	pages := 0
	for _, l := range relists {
		if l.err == nil {
			pages++
		}
	}
	if want := (len(s.existing) + 1) / 10; pages < want {
		t.Errorf("relist took %d successful list calls at page size 10, want at least %d: %+v", pages, want, relists)
	}
	t.Logf("relisted in %d pages after compacting etcd at %d past resourceVersion %d", pages, rev, watchedRV)
	eventually(t, time.Minute, "cache still equals the server", func() error {
		return matchesServer(ctx, s.inf.GetStore(), s.o)
	})
}

// syncedRV returns the resourceVersion inf last synced, as a number.
func syncedRV(t *testing.T, inf interface{ LastSyncResourceVersion() string }) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(inf.LastSyncResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("informer's resourceVersion: %v", err)
	}
	return rv
}

// compactPast compacts etcd at its current revision, which must be past
// rv (the resourceVersion a cut-off informer last synced), and returns
// that revision.
func compactPast(ctx context.Context, t *testing.T, rv int64) int64 {
	t.Helper()
	rev, err := cluster.Etcd.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rev <= rv {
		t.Fatalf("etcd revision %d is not past the informer's resourceVersion %d", rev, rv)
	}
	if err := cluster.Etcd.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	return rev
}

package sharding

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/runtime/sharding/shardingtest"
)

// ungated returns a replica whose Lease calls run straight through.
func ungated(t *testing.T, store *shardingtest.Leases, base *clocktesting.FakeClock, id string) *replica {
	rep := newTestReplica(t, store, base, id, 0)
	rep.leases.pending = nil
	if err := rep.ring.join(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rep
}

// round renews and steps every replica given, in order.
func round(t *testing.T, reps ...*replica) {
	t.Helper()
	for _, rep := range reps {
		if err := rep.ring.write(context.Background()); err != nil {
			t.Fatalf("%s renewing: %v", rep.ring.Identity(), err)
		}
		if err := rep.ring.step(context.Background()); err != nil {
			t.Fatalf("%s stepping: %v", rep.ring.Identity(), err)
		}
	}
}

func sameRanges(a, b []Range) bool { return len(Subtract(a, b)) == 0 && len(Subtract(b, a)) == 0 }

func TestRingJoinAssignsAndRecordsHeldRanges(t *testing.T) {
	base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := shardingtest.NewLeases()
	a := ungated(t, store, base, "a")
	round(t, a)
	if got := a.effective(); len(got) != 1 || got[0] != Full() {
		t.Fatalf("alone, a holds %v, want the whole space", got)
	}
	b := ungated(t, store, base, "b")
	// b sees a's claim on everything: it acquires nothing until a releases.
	round(t, b)
	if got := b.effective(); len(got) != 0 {
		t.Fatalf("b acquired %v while a still claimed it", got)
	}
	round(t, a, b)
	want, _ := Assign([]string{"a", "b"}, 16)
	for _, rep := range []*replica{a, b} {
		id := rep.ring.Identity()
		if !slices.Equal(rep.ring.Members(), []string{"a", "b"}) {
			t.Fatalf("%s sees members %v", id, rep.ring.Members())
		}
		if !sameRanges(rep.effective(), want[id]) {
			t.Fatalf("%s holds %.3f of the space, Assign gives %.3f", id, SpaceOf(rep.effective()), SpaceOf(want[id]))
		}
		l, err := store.Get(context.Background(), rep.ring.LeaseName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Labels[RingLabel] != "ring" || *l.Spec.HolderIdentity != id || *l.Spec.LeaseDurationSeconds != 3 {
			t.Fatalf("%s's Lease: labels %v holder %v duration %v", id, l.Labels, *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds)
		}
		recorded, err := ParseRanges(l.Annotations[HeldAnnotation])
		if err != nil || !sameRanges(recorded, want[id]) {
			t.Fatalf("%s's Lease records %v (%v), want its held ranges", id, recorded, err)
		}
	}
}

func TestRingLossByExpiryMovesRangesWithinDurationPlusPeriod(t *testing.T) {
	base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := shardingtest.NewLeases()
	a, b := ungated(t, store, base, "a"), ungated(t, store, base, "b")
	round(t, a, b)
	round(t, a, b)
	// b crashes right after renewing: its Lease stays, unreleased.
	crashed := base.Now()
	bHeld := b.effective()
	if len(bHeld) == 0 {
		t.Fatal("b held nothing before crashing")
	}
	var movedAt time.Time
	for base.Since(crashed) <= testD+2*testP {
		base.Step(testP / 4)
		round(t, a)
		if b.ring.OwnsNow("", "x") && base.Since(crashed) >= testD-testM {
			t.Fatal("b still owns work past its own deadline")
		}
		if len(Intersect(a.effective(), bHeld)) > 0 && movedAt.IsZero() {
			movedAt = base.Now()
			if base.Since(crashed) < testD {
				t.Fatalf("a took b's ranges %v after the crash, before b's Lease expired", base.Since(crashed))
			}
		}
	}
	if got := a.effective(); len(got) != 1 || got[0] != Full() {
		t.Fatalf("a holds %.3f of the space after b expired, want all", SpaceOf(got))
	}
	if d := movedAt.Sub(crashed); d > testD+testP {
		t.Fatalf("ranges moved %v after the crash, want within D+P = %v", d, testD+testP)
	}
	if !slices.Equal(a.ring.Members(), []string{"a"}) {
		t.Fatalf("a sees members %v after b expired", a.ring.Members())
	}
}

func TestRingFencesItselfWhenItCannotRenew(t *testing.T) {
	base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := shardingtest.NewLeases()
	a := ungated(t, store, base, "a")
	round(t, a)
	if !a.ring.OwnsNow("ns", "uid") {
		t.Fatal("a does not own a key while holding the whole space")
	}
	a.leases.cut = true
	base.Step(testD - testM - time.Millisecond)
	if !a.ring.OwnsNow("ns", "uid") {
		t.Fatal("a stopped before its deadline")
	}
	base.Step(2 * time.Millisecond)
	if a.ring.OwnsNow("ns", "uid") {
		t.Fatal("a still owns keys after last renewal + D - M")
	}
	_ = a.ring.write(context.Background()) // fails, and fences
	if got := a.ring.Held().Ranges(); len(got) != 0 {
		t.Fatalf("a still holds %v after fencing", got)
	}
	// Healed: a renews with nothing held, then acquires through the protocol.
	a.leases.cut = false
	round(t, a)
	if got := a.effective(); len(got) != 1 || got[0] != Full() {
		t.Fatalf("after healing a holds %v", got)
	}
}

func TestRingRestartWaitsForItsEarlierIncarnation(t *testing.T) {
	base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := shardingtest.NewLeases()
	a := ungated(t, store, base, "a")
	round(t, a)
	// The process restarts under the same identity while its Lease is live.
	again := ungated(t, store, base, "a")
	recorded := func() string {
		t.Helper()
		l, err := store.Get(context.Background(), again.ring.LeaseName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Annotations[HeldAnnotation]
	}
	// The old incarnation's claims stay recorded, so that no other replica
	// acquires what it may still be working on.
	if got, want := recorded(), FormatRanges([]Range{Full()}); got != want {
		t.Fatalf("after the restart the Lease records %q, want the earlier incarnation's claims %q", got, want)
	}
	round(t, again)
	if got := again.effective(); len(got) != 0 {
		t.Fatalf("the new incarnation acquired %v while the old one's Lease was live", got)
	}
	if got, want := recorded(), FormatRanges([]Range{Full()}); got != want {
		t.Fatalf("within the old Lease's term the Lease records %q, want %q", got, want)
	}
	base.Step(testD)
	round(t, again)
	round(t, again)
	if got := again.effective(); len(got) != 1 || got[0] != Full() {
		t.Fatalf("after the old Lease's term the new incarnation holds %v", got)
	}
}

func TestNewRingRejectsBadConfig(t *testing.T) {
	store := shardingtest.NewLeases()
	ok := RingConfig{Name: "r", Identity: "a", Field: FieldUID, Leases: store}
	for name, mut := range map[string]func(*RingConfig){
		"no leases":    func(c *RingConfig) { c.Leases = nil },
		"no identity":  func(c *RingConfig) { c.Identity = "" },
		"bad name":     func(c *RingConfig) { c.Name = "a b" },
		"fractional D": func(c *RingConfig) { c.LeaseDuration = 1500 * time.Millisecond },
		"P + M >= D": func(c *RingConfig) {
			c.LeaseDuration, c.RenewPeriod, c.SafetyMargin = 3*time.Second, 2*time.Second, time.Second
		},
		"bad field":         func(c *RingConfig) { c.Field = "spec.x" },
		"bad identity name": func(c *RingConfig) { c.Identity = "A_B" },
		"too many vnodes":   func(c *RingConfig) { c.VNodes = MaxVNodes + 1 },
	} {
		c := ok
		mut(&c)
		if _, err := NewRing(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewRing(ok); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
}

// fastRing returns a Ring on store with periods short enough for a
// synctest bubble's fake time: a one-second Lease renewed every 50 ms.
func fastRing(t *testing.T, store *shardingtest.Leases, id string) *Ring {
	t.Helper()
	r, err := NewRing(RingConfig{Name: "ring", Identity: id, Field: FieldUID, Leases: store,
		LeaseDuration: time.Second, RenewPeriod: 50 * time.Millisecond, SafetyMargin: 200 * time.Millisecond, VNodes: 16})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRingRunJoinsAndLeaves runs two rings on the clock of a synctest
// bubble with short periods and checks they split the space within ten
// lease durations of (fake) time, then that a graceful stop deletes the
// Lease and the survivor takes everything within as long again.
func TestRingRunJoinsAndLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := shardingtest.NewLeases()
		a, b := fastRing(t, store, "a"), fastRing(t, store, "b")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		bctx, bstop := context.WithCancel(ctx)
		doneA, doneB := make(chan error, 1), make(chan error, 1)
		go func() { doneA <- a.Run(ctx) }()
		go func() { doneB <- b.Run(bctx) }()
		want, _ := Assign([]string{"a", "b"}, 16)
		settle := func() {
			time.Sleep(10 * time.Second)
			synctest.Wait()
		}
		settle()
		if !sameRanges(a.Held().Ranges(), want["a"]) || !sameRanges(b.Held().Ranges(), want["b"]) {
			t.Fatalf("a holds %v, b holds %v; want a and b to split the space as %v", a.Held().Ranges(), b.Held().Ranges(), want)
		}
		bstop()
		if err := <-doneB; err != nil {
			t.Fatal(err)
		}
		if _, err := store.Get(ctx, b.LeaseName(), metav1.GetOptions{}); err == nil {
			t.Fatal("b's Lease still exists after a graceful stop")
		}
		settle()
		if h := a.Held().Ranges(); len(h) != 1 || h[0] != Full() {
			t.Fatalf("a holds %v after b left, want the whole space", h)
		}
		cancel()
		if err := <-doneA; err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if left := packageGoroutines(); len(left) > 0 {
			t.Fatalf("goroutines outlived Run:\n\n%s", strings.Join(left, "\n\n"))
		}
	})
}

// blockingDrainer models a controller with a reconcile of a released key
// that never returns on its own: a polite Drain waits until its context
// ends, an abandoning one cancels the reconcile and returns.
type blockingDrainer struct {
	mu    sync.Mutex
	calls []bool // abandon, per call
}

func (d *blockingDrainer) Drain(ctx context.Context, _ []Range, abandon bool) error {
	d.mu.Lock()
	d.calls = append(d.calls, abandon)
	d.mu.Unlock()
	if abandon {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestRingReleaseCancelsWorkThatOutlastsTheLease checks that a release
// whose drain is stuck on a reconcile that never returns does not keep the
// released ranges claimed and unworked for ever: after a Lease duration
// the work is abandoned and the release is recorded, so the joining
// replica acquires its share.
func TestRingReleaseCancelsWorkThatOutlastsTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := shardingtest.NewLeases()
		a, b := fastRing(t, store, "a"), fastRing(t, store, "b")
		d := &blockingDrainer{}
		a.AddDrainer(d)
		ctx, cancel := context.WithCancel(context.Background())
		doneA, doneB := make(chan error, 1), make(chan error, 1)
		go func() { doneA <- a.Run(ctx) }()
		time.Sleep(time.Second)
		synctest.Wait()
		if got := a.Held().Ranges(); len(got) != 1 || got[0] != Full() {
			t.Fatalf("alone, a holds %v, want the whole space", got)
		}
		go func() { doneB <- b.Run(ctx) }()
		// a's release drain blocks for a Lease duration, then abandons.
		time.Sleep(5 * time.Second)
		synctest.Wait()
		want, _ := Assign([]string{"a", "b"}, 16)
		if !sameRanges(b.Held().Ranges(), want["b"]) {
			t.Fatalf("b holds %.3f of the space, want its share %.3f: a's stuck release never ended", SpaceOf(b.Held().Ranges()), SpaceOf(want["b"]))
		}
		d.mu.Lock()
		calls := slices.Clone(d.calls)
		d.mu.Unlock()
		if len(calls) < 2 || calls[0] || !calls[1] {
			t.Fatalf("a's drains were %v (abandon per call), want a polite one, then an abandoning one", calls)
		}
		cancel()
		for _, done := range []chan error{doneA, doneB} {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestRingOwnsNowFencesPastTheDeadline checks that OwnsNow never refuses a
// key whose range is still in Held: past the deadline it fences first, so
// that a renewal finishing a moment later (no fence by the renewal loop)
// still shows the range lost and regained to Held's readers, and the work
// refused meanwhile is found again.
func TestRingOwnsNowFencesPastTheDeadline(t *testing.T) {
	base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := shardingtest.NewLeases()
	a := ungated(t, store, base, "a")
	round(t, a)
	_, gen, _ := a.ring.Held().Snapshot()
	base.Step(testD - testM + time.Millisecond)
	if a.ring.OwnsNow("ns", "uid") {
		t.Fatal("a owns a key past its deadline")
	}
	if got := a.ring.Held().Ranges(); len(got) != 0 {
		t.Fatalf("OwnsNow refused a key while Held still has %v", got)
	}
	// The renewal succeeds after all, and the next step reacquires.
	round(t, a)
	cur, gained, _, _ := a.ring.Held().SnapshotSince(gen)
	if len(cur) != 1 || cur[0] != Full() || !sameRanges(gained, cur) {
		t.Fatalf("after renewing a holds %v with %v gained since before the deadline, want the whole space regained", cur, gained)
	}
}

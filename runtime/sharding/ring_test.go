package sharding

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/runtime/sharding/shardingtest"
)

// skewedClock is a replica's clock: the shared fake time plus a fixed
// offset, to model unsynchronised machines.
type skewedClock struct {
	*clocktesting.FakeClock
	offset time.Duration
}

func (c skewedClock) Now() time.Time                  { return c.FakeClock.Now().Add(c.offset) }
func (c skewedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// cutLeases is one replica's view of the shared store; while cut, every
// call fails as in a network partition.
type cutLeases struct {
	*shardingtest.Leases
	cut bool
	// pending and grant, when set, make every call wait for the test's
	// scheduler, so that calls of different replicas interleave in a
	// seeded order.
	pending chan struct{}
	grant   chan struct{}
}

func (c *cutLeases) yield() {
	if c.pending != nil {
		c.pending <- struct{}{}
		<-c.grant
	}
}

var errCut = errors.New("partitioned")

func (c *cutLeases) Get(ctx context.Context, n string, o metav1.GetOptions) (*coordinationv1.Lease, error) {
	if c.yield(); c.cut {
		return nil, errCut
	}
	return c.Leases.Get(ctx, n, o)
}
func (c *cutLeases) Create(ctx context.Context, l *coordinationv1.Lease, o metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if c.yield(); c.cut {
		return nil, errCut
	}
	return c.Leases.Create(ctx, l, o)
}
func (c *cutLeases) Update(ctx context.Context, l *coordinationv1.Lease, o metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if c.yield(); c.cut {
		return nil, errCut
	}
	return c.Leases.Update(ctx, l, o)
}
func (c *cutLeases) List(ctx context.Context, o metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if c.yield(); c.cut {
		return nil, errCut
	}
	return c.Leases.List(ctx, o)
}

const (
	testD = 3 * time.Second
	testP = time.Second
	testM = 600 * time.Millisecond
)

type replica struct {
	ring   *Ring
	clk    skewedClock
	leases *cutLeases
	paused bool
	dead   bool
	// busy: a step or renewal is running in its goroutine, blocked in a
	// Lease call until granted.
	busy bool
	done chan struct{}
}

// start runs f in the replica's goroutine and returns once f blocks on its
// first Lease call or returns.
func (rep *replica) start(f func()) {
	rep.busy = true
	go func() {
		f()
		rep.done <- struct{}{}
	}()
	rep.wait()
}

// advance lets the blocked Lease call proceed, then waits as start does.
func (rep *replica) advance() {
	rep.leases.grant <- struct{}{}
	rep.wait()
}

func (rep *replica) wait() {
	select {
	case <-rep.leases.pending:
	case <-rep.done:
		rep.busy = false
	}
}

func newTestReplica(t *testing.T, store *shardingtest.Leases, base *clocktesting.FakeClock, id string, offset time.Duration) *replica {
	t.Helper()
	rep := &replica{
		clk:    skewedClock{base, offset},
		leases: &cutLeases{Leases: store, pending: make(chan struct{}), grant: make(chan struct{})},
		done:   make(chan struct{}),
	}
	r, err := NewRing(RingConfig{
		Name: "ring", Identity: id, Field: FieldUID, Leases: rep.leases,
		LeaseDuration: testD, RenewPeriod: testP, SafetyMargin: testM, VNodes: 16, Clock: rep.clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep.ring = r
	return rep
}

// effective is what the replica may start work on now: Held while its own
// deadline has not passed (what OwnsNow checks).
func (rep *replica) effective() []Range {
	rep.ring.mu.Lock()
	valid := rep.ring.validLocked(rep.clk.Now())
	rep.ring.mu.Unlock()
	if !valid {
		return nil
	}
	return rep.ring.Held().Ranges()
}

func checkNoOverlap(t *testing.T, reps []*replica, step int, what string) {
	t.Helper()
	for i, a := range reps {
		for j := i + 1; j < len(reps); j++ {
			if both := Intersect(a.effective(), reps[j].effective()); len(both) > 0 {
				t.Fatalf("step %d (%s): %s and %s both hold %v", step, what, a.ring.Identity(), reps[j].ring.Identity(), both)
			}
		}
	}
}

// TestRingHandoffNeverOverlaps drives replicas through a seeded random
// schedule of joins, crashes, pauses past the lease, partitions and clock
// skew (within the margin), calling renew and step by hand, and checks
// after every action that no hash value is held by two replicas. Then it
// lets the survivors settle and checks that they cover the whole space
// exactly as Assign says.
func TestRingHandoffNeverOverlaps(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(200) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 22))
			base := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			store := shardingtest.NewLeases()
			var reps []*replica
			next := 0
			join := func() {
				// Offsets in ±M/3: any two clocks differ by less than M.
				off := time.Duration(rng.Int64N(int64(2*testM/3))) - testM/3
				rep := newTestReplica(t, store, base, fmt.Sprintf("r%d", next), off)
				next++
				reps = append(reps, rep)
				rep.start(func() { _ = rep.ring.join(ctx) })
			}
			for range 3 {
				join()
			}
			for step := range 600 {
				var what string
				switch k := rng.IntN(100); {
				case k < 30:
					base.Step(time.Duration(rng.Int64N(int64(testP/2))) + time.Millisecond)
					what = "time passes"
				case k < 85:
					rep := reps[rng.IntN(len(reps))]
					switch {
					case rep.dead || rep.paused:
						continue
					case rep.busy:
						rep.advance()
						what = "next call of " + rep.ring.Identity()
					case k < 60:
						rep.start(func() { _ = rep.ring.step(ctx) })
						what = "step " + rep.ring.Identity()
					default:
						rep.start(func() { _ = rep.ring.write(ctx) })
						what = "renew " + rep.ring.Identity()
					}
				case k < 88:
					if len(reps) < 7 {
						join()
						what = "join"
					}
				case k < 91:
					rep := reps[rng.IntN(len(reps))]
					if rep.busy {
						continue // crash between calls only; see the settling phase
					}
					rep.dead = true
					what = "crash " + rep.ring.Identity()
				case k < 96:
					rep := reps[rng.IntN(len(reps))]
					rep.paused = !rep.paused
					what = fmt.Sprintf("pause=%v %s", rep.paused, rep.ring.Identity())
				default:
					rep := reps[rng.IntN(len(reps))]
					rep.leases.cut = !rep.leases.cut
					what = fmt.Sprintf("partition=%v %s", rep.leases.cut, rep.ring.Identity())
				}
				checkNoOverlap(t, reps, step, what)
			}

			// Settle: heal everything, finish what is in flight (the dead
			// too, harmlessly: a crashed process's last call may still
			// land), stop gating calls, let the dead expire, run rounds.
			var live []*replica
			for _, rep := range reps {
				rep.paused, rep.leases.cut = false, false
				for rep.busy {
					rep.advance()
				}
				rep.leases.pending = nil
				if !rep.dead {
					live = append(live, rep)
				}
			}
			if len(live) == 0 {
				return
			}
			for round := range 12 {
				base.Step(testP / 2)
				for _, rep := range live {
					_ = rep.ring.write(ctx)
					_ = rep.ring.step(ctx)
				}
				checkNoOverlap(t, reps, 1000+round, "settling")
			}
			var ids []string
			for _, rep := range live {
				ids = append(ids, rep.ring.Identity())
			}
			want, _ := Assign(ids, 16)
			var union []Range
			for _, rep := range live {
				got := rep.effective()
				if len(Subtract(got, want[rep.ring.Identity()])) > 0 || len(Subtract(want[rep.ring.Identity()], got)) > 0 {
					t.Fatalf("after settling %s holds %.3f of the space, Assign gives it %.3f (members %v)",
						rep.ring.Identity(), SpaceOf(got), SpaceOf(want[rep.ring.Identity()]), rep.ring.Members())
				}
				union = Union(union, got)
			}
			if len(union) != 1 || union[0] != Full() {
				t.Fatalf("after settling the live replicas hold %.3f of the space, want all", SpaceOf(union))
			}
		})
	}
}

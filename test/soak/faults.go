package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fault kinds.
const (
	FaultAPIServerKill = "apiserver-kill"
	FaultConnReset     = "conn-reset"
	FaultReplicaKill   = "replica-kill"
	FaultConnHang      = "conn-hang"
	FaultThrottle      = "throttle"
	FaultAcceptPause   = "accept-pause"
	FaultReplicaPause  = "replica-pause"
	FaultCompaction    = "compaction"
	FaultEtcdRestart   = "etcd-restart"
	FaultReplicaJoin   = "replica-join"
	FaultReplicaLeave  = "replica-leave"
	FaultSlowHandler   = "slow-handler"
)

// requiredFaults open every cycle of the schedule, so that even a short
// run injects each of them.
var requiredFaults = []string{FaultAPIServerKill, FaultConnReset, FaultReplicaKill}

// otherFaults follow, shuffled, in every cycle.
// A cycle holds one join and one leave, so the sharded group keeps
// between 2 and 4 replicas.
var otherFaults = []string{FaultConnHang, FaultThrottle, FaultAcceptPause, FaultReplicaPause, FaultCompaction,
	FaultEtcdRestart, FaultReplicaJoin, FaultReplicaLeave, FaultSlowHandler}

// FaultRecord is one injected fault.
type FaultRecord struct {
	Kind   string    `json:"kind"`
	At     time.Time `json:"at"`
	Target string    `json:"target,omitempty"`
	// Held is how long the fault lasted before it was healed.
	Held  time.Duration `json:"held"`
	Error string        `json:"error,omitempty"`
}

// schedule yields fault kinds: cycles of the required kinds then the
// others, each part shuffled by the seeded source.
type schedule struct {
	rnd             *rand.Rand
	required, other []string
	queue           []string
}

// newSchedule returns the default schedule, or one cycling through kinds
// (shuffled) when kinds is not empty.
func newSchedule(seed uint64, kinds []string) *schedule {
	s := &schedule{rnd: rand.New(rand.NewPCG(seed, 0xfa17)), required: requiredFaults, other: otherFaults}
	if len(kinds) > 0 {
		s.required, s.other = nil, kinds
	}
	return s
}

func (s *schedule) next() string {
	if len(s.queue) == 0 {
		req := slices.Clone(s.required)
		oth := slices.Clone(s.other)
		s.rnd.Shuffle(len(req), func(i, j int) { req[i], req[j] = req[j], req[i] })
		s.rnd.Shuffle(len(oth), func(i, j int) { oth[i], oth[j] = oth[j], oth[i] })
		s.queue = slices.Concat(req, oth)
	}
	k := s.queue[0]
	s.queue = s.queue[1:]
	return k
}

// inject runs one fault of kind against the run and heals it before it
// returns (a killed replica is restarted by its supervisor).
func (r *run) inject(ctx context.Context, kind string) FaultRecord {
	rec := FaultRecord{Kind: kind, At: time.Now()}
	hold := time.Duration(1500+r.sched.rnd.IntN(2000)) * time.Millisecond
	rep := r.target()
	var err error
	switch kind {
	case FaultAPIServerKill:
		rec.Target = "kube-apiserver"
		r.cluster.KillAPIServer()
		time.Sleep(hold / 2)
		err = r.cluster.StartAPIServer(ctx)
	case FaultConnReset:
		rec.Target = rep.name
		n := rep.proxy.Reset()
		rec.Target = fmt.Sprintf("%s (%d connections)", rep.name, n)
	case FaultReplicaKill:
		rec.Target = rep.name
		rep.kill()
	case FaultConnHang:
		rec.Target = rep.name
		rep.proxy.Hang()
		time.Sleep(hold)
		rep.proxy.Heal()
	case FaultThrottle:
		rec.Target = rep.name
		rep.proxy.SetLatency(100 * time.Millisecond)
		rep.proxy.SetBandwidth(32 << 10)
		time.Sleep(hold)
		rep.proxy.Heal()
	case FaultAcceptPause:
		// Reset first, so that the replica's reconnects meet the pause.
		rec.Target = rep.name
		rep.proxy.PauseAccept()
		rep.proxy.Reset()
		time.Sleep(hold)
		rep.proxy.Heal()
	case FaultReplicaPause:
		// Past the Lease: the others take over; on SIGCONT the replica must
		// fence itself before it reconciles again.
		if rep.group == groupElected {
			// Pausing the standby tests nothing: pause the leader.
			rep = r.leader(ctx, rep)
		}
		rec.Target = rep.name
		rep.signal(syscall.SIGSTOP)
		time.Sleep(r.cfg.LeaseDuration + time.Second + hold/2)
		rep.signal(syscall.SIGCONT)
	case FaultCompaction:
		// Compact to the current revision, then cut a replica's watches:
		// resuming from a compacted resourceVersion gets 410 Gone.
		rec.Target = rep.name
		var rev int64
		if rev, err = r.cluster.Etcd.Revision(ctx); err == nil {
			err = r.cluster.Etcd.Compact(ctx, rev)
			rep.proxy.Reset()
		}
	case FaultEtcdRestart:
		// Killed, then restarted on its data dir and ports: the apiserver
		// reconnects, its watch cache may relist.
		rec.Target = "etcd"
		r.cluster.Etcd.Kill()
		time.Sleep(hold / 2)
		err = r.cluster.Etcd.Restart(ctx)
	case FaultReplicaJoin:
		// A new sharded replica: the ring hands it a share of the ranges.
		r.joined++
		name := fmt.Sprintf("sharded-%d", 2+r.joined)
		rec.Target = name
		err = r.addReplica(groupSharded, name)
	case FaultReplicaLeave:
		// A sharded replica stops cleanly (SIGTERM): it drains, deletes its
		// Lease and the others take its ranges over at once.
		var sharded []*replica
		for _, p := range r.replicas {
			if p.group == groupSharded {
				sharded = append(sharded, p)
			}
		}
		if len(sharded) < 2 {
			err = fmt.Errorf("only %d sharded replicas left", len(sharded))
			break
		}
		p := sharded[r.sched.rnd.IntN(len(sharded))]
		rec.Target = p.name
		r.retire(p)
	case FaultSlowHandler:
		// The replica's Foo event handler and reconciles wait 200ms each
		// for a while: queues and handler buffers fill up, then drain.
		rec.Target = rep.name
		err = rep.post(ctx, fmt.Sprintf("/debug/slow?for=%s&delay=200ms", 2*hold))
		time.Sleep(2 * hold)
	default:
		err = fmt.Errorf("unknown fault kind %q", kind)
	}
	rec.Held = time.Since(rec.At).Round(time.Millisecond)
	if err != nil {
		rec.Error = err.Error()
	}
	return rec
}

// target picks the replica a fault hits, among those of Config.FaultGroup
// if set.
func (r *run) target() *replica {
	var in []*replica
	for _, p := range r.replicas {
		if r.cfg.FaultGroup == "" || p.group == r.cfg.FaultGroup {
			in = append(in, p)
		}
	}
	return in[r.sched.rnd.IntN(len(in))]
}

// leader returns the elected group's replica holding the Lease, or def
// when the Lease cannot be read or names no replica.
func (r *run) leader(ctx context.Context, def *replica) *replica {
	le, err := r.c.kube.CoordinationV1().Leases(leaseNS).Get(ctx, electionID, metav1.GetOptions{})
	if err != nil || le.Spec.HolderIdentity == nil {
		return def
	}
	for _, p := range r.replicas {
		if p.name == *le.Spec.HolderIdentity {
			return p
		}
	}
	return def
}

// retire stops rep for good and keeps it apart, for the trace analysis.
func (r *run) retire(rep *replica) {
	rep.stop()
	_ = rep.proxy.Close()
	r.replicas = slices.DeleteFunc(r.replicas, func(p *replica) bool { return p == rep })
	r.retired = append(r.retired, rep)
}

package sharding

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Defaults of RingConfig (DefaultVNodes is in assign.go).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewPeriod   = 5 * time.Second
	DefaultSafetyMargin  = 2 * time.Second
)

// RingConfig configures NewRing. Zero durations, a zero VNodes and a nil
// Clock take the defaults documented on the fields.
type RingConfig struct {
	// Name is the ring's name: the value of RingLabel on its Leases and the
	// prefix of their names. Required; a valid label value.
	Name string
	// Identity names this replica (e.g. the pod name); unique in the ring.
	// Required. The Lease is called Name + "-" + Identity.
	Identity string
	// Field is the metadata field whose hash places objects on the ring.
	Field Field
	// Leases reads and writes the ring's Leases in one namespace, e.g.
	// clientset.CoordinationV1().Leases(namespace). Required.
	Leases LeaseClient
	// LeaseDuration (D) is how long after its last renewal a replica's
	// Lease stays live in others' eyes. Whole seconds (it is written to
	// leaseDurationSeconds). Default DefaultLeaseDuration (15s).
	LeaseDuration time.Duration
	// RenewPeriod (P) is how often the replica renews its Lease and
	// re-reads the ring. Default DefaultRenewPeriod (5s). Ranges of a
	// replica that died move within D + P.
	RenewPeriod time.Duration
	// SafetyMargin (M): a replica stops working on its ranges when its own
	// clock passes its last successful renewal + D - M, before others can
	// see its Lease expire. M must exceed the worst clock offset between
	// replicas plus the time a reconcile needs to notice cancellation.
	// P + M must be less than D. Default DefaultSafetyMargin (2s).
	SafetyMargin time.Duration
	// VNodes is the number of virtual nodes per member given to Assign.
	// Default DefaultVNodes (256).
	VNodes int
	// KeepLeaseOnStop leaves the Lease in place when Run returns, as a
	// crashed process would; by default Run drains and deletes it so the
	// others take over at once.
	KeepLeaseOnStop bool
	// Clock is the time source. Default the real clock.
	Clock clock.Clock
	// Logger is the base logger. Default klog.Background() with "ring" and
	// "identity" values.
	Logger *klog.Logger
}

// withDefaults returns c with every zero field that has a default given it.
// It is the only place those defaults are applied; NewRing validates the
// result (a negative duration or VNodes is an error, not a default).
func (c RingConfig) withDefaults() RingConfig {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewPeriod == 0 {
		c.RenewPeriod = DefaultRenewPeriod
	}
	if c.SafetyMargin == 0 {
		c.SafetyMargin = DefaultSafetyMargin
	}
	if c.VNodes == 0 {
		c.VNodes = DefaultVNodes
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	return c
}

// Drainer is told when a replica's held ranges shrink, e.g. by a sharded
// controller.
type Drainer interface {
	// Drain returns once no work on a key outside held is in flight and
	// none will start. With abandon set the replica lost its Lease, or
	// released ranges whose work outlasted the Lease duration: work
	// outside held should be cancelled, not waited for politely. Drain
	// returns ctx's error if ctx ends first; the ring then records no
	// release. Drain may be called concurrently with itself.
	Drain(ctx context.Context, held []Range, abandon bool) error
}

// Ring makes one replica a member of a sharded ring coordinated through
// Leases. It keeps the replica's Lease renewed, computes the replica's
// desired ranges with Assign over the live members, and moves ranges
// between replicas by the handoff protocol of docs/sharding.md, so that
// no hash value is held by two replicas at once as long as clock offsets
// stay below SafetyMargin.
//
// Held is what the replica may work on; Cache is what its informers
// should cache (held and desired, so a range is warm before it is
// acquired). Register Drainers with AddDrainer before Run. All methods
// are safe for concurrent use.
type Ring struct {
	// Set by NewRing and never changed; the Scopes lock themselves.
	cfg       RingConfig
	leaseName string
	logger    klog.Logger
	clock     clock.Clock
	held      *Scope
	cache     *Scope
	// abandon (capacity 1) holds a token while a fence's abandoning drain
	// is owed to the Drainers: fenceIfExpired puts one without blocking,
	// the goroutine Run starts for it (abandonLoop) takes it and drains,
	// and stop takes a token left over when Run ends.
	abandon chan struct{}

	// Lock order: writeMu, then mu, then a Scope's lock. held.Set and
	// cache.Set are called with mu held, so that the ring's fields and
	// the Scopes change together for every other holder of mu. Never
	// take writeMu while holding mu. No lock is held while a
	// Drainer runs, and only writeMu is held across an apiserver call.
	//
	// Two locks, because one cannot serve both purposes: a Lease write
	// must be serialised across the apiserver round trip (the renewal
	// goroutine and the step loop both write, and each write starts from
	// the resourceVersion the last one returned), while OwnsNow, called
	// before every reconcile, must never wait for the network.

	// writeMu serialises Lease writes and guards lease. write holds it
	// for the whole request, retries included.
	writeMu sync.Mutex
	// lease is the replica's Lease as last read or written; nil when it
	// does not exist (yet). Guarded by writeMu.
	lease *coordinationv1.Lease

	// mu guards every field below it. It is held only for in-memory
	// updates, never across an apiserver call or a Drainer.
	mu sync.Mutex
	// claims are recorded in the Lease: always a superset of held.
	claims []Range
	// lastRenew is the renewTime of the last successful write.
	lastRenew time.Time
	// epoch counts fences; an acquisition started in an older epoch is
	// dropped.
	epoch          uint64
	members        []string
	desired        []Range
	drainers       []Drainer
	inheritedUntil time.Time
	running        bool
}

// NewRing checks cfg, applies defaults and returns a Ring holding nothing.
// It does not contact the apiserver.
func NewRing(cfg RingConfig) (*Ring, error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.Leases == nil:
		return nil, errors.New("sharding: RingConfig.Leases must be set")
	case cfg.Identity == "":
		return nil, errors.New("sharding: RingConfig.Identity must not be empty")
	case len(validation.IsValidLabelValue(cfg.Name)) > 0 || cfg.Name == "":
		return nil, fmt.Errorf("sharding: ring name %q is not a valid label value", cfg.Name)
	case cfg.LeaseDuration < time.Second || cfg.LeaseDuration%time.Second != 0:
		return nil, fmt.Errorf("sharding: LeaseDuration %v must be a whole number of seconds", cfg.LeaseDuration)
	case cfg.RenewPeriod < 0 || cfg.SafetyMargin < 0 || cfg.RenewPeriod+cfg.SafetyMargin >= cfg.LeaseDuration:
		return nil, fmt.Errorf("sharding: RenewPeriod %v + SafetyMargin %v must be positive and below LeaseDuration %v",
			cfg.RenewPeriod, cfg.SafetyMargin, cfg.LeaseDuration)
	case cfg.VNodes < 1 || cfg.VNodes > MaxVNodes:
		return nil, fmt.Errorf("sharding: VNodes %d outside 1..%d", cfg.VNodes, MaxVNodes)
	}
	if err := cfg.Field.Validate(); err != nil {
		return nil, err
	}
	name := cfg.Name + "-" + cfg.Identity
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("sharding: Lease name %q: %v", name, errs)
	}
	logger := klog.Background()
	if cfg.Logger != nil {
		logger = *cfg.Logger
	}
	held, _ := NewScope(cfg.Field, nil)
	cache, _ := NewScope(cfg.Field, nil)
	return &Ring{
		cfg:       cfg,
		leaseName: name,
		logger:    logger.WithValues("ring", cfg.Name, "identity", cfg.Identity),
		clock:     cfg.Clock,
		held:      held,
		cache:     cache,
		abandon:   make(chan struct{}, 1),
	}, nil
}

// Identity returns the replica's identity.
func (r *Ring) Identity() string { return r.cfg.Identity }

// Field returns the hashed field.
func (r *Ring) Field() Field { return r.cfg.Field }

// LeaseName returns the name of the replica's Lease.
func (r *Ring) LeaseName() string { return r.leaseName }

// Held is the Scope of ranges the replica holds: recorded in its Lease
// and released by nobody else. Only the Ring sets it. A consumer must
// also check OwnsNow before starting work, because a replica that stopped
// renewing (paused, partitioned) may still see old ranges here.
func (r *Ring) Held() *Scope { return r.held }

// Cache is the Scope the replica's informers should cache: held ∪
// desired. Only the Ring sets it.
func (r *Ring) Cache() *Scope { return r.cache }

// OwnsNow reports whether work on an object with this namespace and uid
// may start now: its hash is in Held and the replica's Lease is not past
// its self-fencing deadline (last renewal + LeaseDuration - SafetyMargin).
//
// Past the deadline it fences first (Held becomes empty, as the renewal
// loop would at its next turn): OwnsNow never reports false for a range
// still in Held. A consumer that drops work OwnsNow refuses therefore
// always sees the range leave Held and, if the replica gets it back,
// return as gained (Scope.SnapshotSince), even when a renewal that was
// under way at the deadline succeeds a moment later.
func (r *Ring) OwnsNow(namespace, uid string) bool {
	r.mu.Lock()
	valid := r.validLocked(r.clock.Now())
	r.mu.Unlock()
	if !valid {
		r.fenceIfExpired()
		return false
	}
	return r.held.Owns(namespace, uid)
}

// Members returns the live members seen by the last ring read, sorted.
func (r *Ring) Members() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.members)
}

// Desired returns the ranges Assign gives this replica over the live
// members of the last ring read.
func (r *Ring) Desired() []Range {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.desired)
}

// AddDrainer registers d; every shrink of Held waits for it before the
// release is recorded. Call before Run.
func (r *Ring) AddDrainer(d Drainer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drainers = append(r.drainers, d)
}

func (r *Ring) validLocked(now time.Time) bool {
	return !r.lastRenew.IsZero() && now.Before(r.lastRenew.Add(r.cfg.LeaseDuration-r.cfg.SafetyMargin))
}

// Run joins the ring and keeps the Lease renewed and the ranges moving
// until ctx ends. Then it empties Held, waits for the Drainers (up to
// LeaseDuration) and deletes the Lease, unless KeepLeaseOnStop. It returns
// an error only if it was already running; apiserver errors are logged
// and retried every RenewPeriod.
//
// Every goroutine Run starts (the renewal loop and the one that tells the
// Drainers to abandon work after a fence) has returned when Run returns.
func (r *Ring) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		return fmt.Errorf("sharding: ring %s/%s is already running", r.cfg.Name, r.cfg.Identity)
	}
	r.running = true
	r.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { r.abandonLoop(ctx) })
	joined := r.joinLoop(ctx)
	if joined {
		wg.Go(func() { r.renewLoop(ctx) })
		r.stepLoop(ctx)
	}
	wg.Wait()
	if joined {
		r.stop()
	}
	return nil
}

// joinLoop calls join every RenewPeriod until it succeeds (true) or ctx
// ends (false).
func (r *Ring) joinLoop(ctx context.Context) bool {
	for {
		err := r.callWithTimeout(ctx, r.join)
		if err == nil {
			return true
		}
		r.logger.Error(err, "Joining the ring")
		select {
		case <-ctx.Done():
			return false
		case <-r.clock.After(r.cfg.RenewPeriod):
		}
	}
}

// stepLoop moves ranges every RenewPeriod until ctx ends.
func (r *Ring) stepLoop(ctx context.Context) {
	for ctx.Err() == nil {
		if err := r.step(ctx); err != nil && ctx.Err() == nil {
			r.logger.Error(err, "Moving ranges")
		}
		select {
		case <-ctx.Done():
		case <-r.clock.After(r.cfg.RenewPeriod):
		}
	}
}

func (r *Ring) callWithTimeout(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := r.callContext(ctx)
	defer cancel()
	return f(ctx)
}

// callContext bounds one apiserver call: by the time left before the
// fencing deadline (a renewal that lands later is of no use), but never
// less than RenewPeriod, so that a loaded apiserver still gets a chance.
func (r *Ring) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	limit := r.cfg.RenewPeriod
	r.mu.Lock()
	if !r.lastRenew.IsZero() {
		if left := r.lastRenew.Add(r.cfg.LeaseDuration - r.cfg.SafetyMargin).Sub(r.clock.Now()); left > limit {
			limit = left
		}
	}
	r.mu.Unlock()
	return context.WithTimeout(ctx, limit)
}

// renewLoop renews every RenewPeriod and fences at the deadline.
func (r *Ring) renewLoop(ctx context.Context) {
	for {
		r.mu.Lock()
		wait := r.cfg.RenewPeriod
		if !r.lastRenew.IsZero() {
			if d := r.lastRenew.Add(r.cfg.LeaseDuration - r.cfg.SafetyMargin).Sub(r.clock.Now()); d > 0 && d < wait {
				wait = d
			}
		}
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-r.clock.After(wait):
		}
		if err := r.write(ctx); err != nil && ctx.Err() == nil {
			r.logger.Error(err, "Renewing the Lease")
		}
		r.fenceIfExpired()
	}
}

// stop empties Held and, unless KeepLeaseOnStop, drains and deletes the
// Lease. An abandoning drain still owed after a fence is done first, even
// with KeepLeaseOnStop. It runs after every goroutine of Run returned.
func (r *Ring) stop() {
	r.mu.Lock()
	r.epoch++
	_ = r.held.Set(nil)
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.LeaseDuration)
	defer cancel()
	abandon := false
	select {
	case <-r.abandon:
		abandon = true
	default:
	}
	if r.cfg.KeepLeaseOnStop {
		if abandon {
			if err := r.drain(ctx, nil, true); err != nil {
				r.logger.Error(err, "Abandoning work after losing the Lease")
			}
		}
		r.logger.Info("Stopped; the Lease is left to expire")
		return
	}
	if err := r.drain(ctx, nil, abandon); err != nil {
		r.logger.Error(err, "Draining before leaving; the Lease is left to expire")
		return
	}
	if err := r.cfg.Leases.Delete(ctx, r.leaseName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		r.logger.Error(err, "Deleting the Lease; it is left to expire")
		return
	}
	r.logger.Info("Left the ring")
}

// join reads or creates the replica's Lease. A live Lease of an earlier
// incarnation keeps its recorded claims until it would have expired: the
// replica acquires nothing before then.
func (r *Ring) join(ctx context.Context) error {
	cur, err := r.cfg.Leases.Get(ctx, r.leaseName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading Lease %s: %w", r.leaseName, err)
	default:
		r.writeMu.Lock()
		r.lease = cur
		r.writeMu.Unlock()
		if until, ok := expiry(cur); ok && r.clock.Now().Before(until) {
			claims, err := ParseRanges(cur.Annotations[HeldAnnotation])
			if err != nil {
				claims = []Range{Full()} // unreadable: assume the worst
			}
			if len(claims) > 0 {
				r.mu.Lock()
				r.claims, r.inheritedUntil = claims, until
				r.mu.Unlock()
				r.logger.Info("An earlier incarnation's Lease is live; acquiring nothing until it expires", "until", until)
			}
		}
	}
	return r.write(ctx)
}

// expiry returns when a Lease stops being live: renewTime +
// leaseDurationSeconds, by the holder's clock as written.
func expiry(l *coordinationv1.Lease) (time.Time, bool) {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second), true
}

// write records the current claims and renews the Lease. The renewTime is
// read before the request is sent, so the replica's own deadline is never
// later than the one others compute from the Lease.
func (r *Ring) write(ctx context.Context) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	// A replica past its deadline (paused, cut off) must drop what it held
	// before a renewal makes it valid again: others may own it by now.
	r.fenceIfExpired()
	ctx, cancel := r.callContext(ctx)
	defer cancel()
	sent := r.clock.Now().Truncate(time.Microsecond)
	r.mu.Lock()
	claims := FormatRanges(r.claims)
	r.mu.Unlock()

	for attempt := 0; ; attempt++ {
		var l *coordinationv1.Lease
		if r.lease != nil {
			l = r.lease.DeepCopy()
		} else {
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: r.leaseName}}
		}
		if l.Labels == nil {
			l.Labels = map[string]string{}
		}
		l.Labels[RingLabel] = r.cfg.Name
		if l.Annotations == nil {
			l.Annotations = map[string]string{}
		}
		l.Annotations[HeldAnnotation] = claims
		secs := int32(r.cfg.LeaseDuration / time.Second)
		renew := metav1.NewMicroTime(sent)
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != r.cfg.Identity || l.Spec.AcquireTime == nil {
			l.Spec.AcquireTime = &renew
		}
		id := r.cfg.Identity
		l.Spec.HolderIdentity = &id
		l.Spec.LeaseDurationSeconds = &secs
		l.Spec.RenewTime = &renew

		var out *coordinationv1.Lease
		var err error
		if r.lease == nil {
			out, err = r.cfg.Leases.Create(ctx, l, metav1.CreateOptions{})
		} else {
			out, err = r.cfg.Leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		if err == nil {
			r.lease = out
			r.mu.Lock()
			if sent.After(r.lastRenew) {
				r.lastRenew = sent
			}
			r.mu.Unlock()
			return nil
		}
		if attempt > 0 || !(apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err)) {
			return fmt.Errorf("writing Lease %s: %w", r.leaseName, err)
		}
		// Our copy is stale (a write whose answer we lost, or the Lease was
		// deleted): start again from the stored one.
		cur, gerr := r.cfg.Leases.Get(ctx, r.leaseName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(gerr):
			r.lease = nil
		case gerr != nil:
			return fmt.Errorf("writing Lease %s: %w (re-reading: %v)", r.leaseName, err, gerr) //nolint:errorlint // callers match the write's error; the re-read's is context
		default:
			r.lease = cur
		}
	}
}

// fenceIfExpired drops every held range and claim once the replica's own
// deadline passed: by then others may consider its Lease expired. The
// Drainers are told to abandon work by abandonLoop, so that neither the
// renewal nor the step loop waits for them. A replica that never renewed
// holds nothing and has nothing to fence: any claims it has are an
// earlier incarnation's, which join keeps recorded until they expire.
func (r *Ring) fenceIfExpired() {
	r.mu.Lock()
	if r.lastRenew.IsZero() || r.validLocked(r.clock.Now()) || (len(r.claims) == 0 && len(r.held.Ranges()) == 0) {
		r.mu.Unlock()
		return
	}
	r.epoch++
	r.claims = nil
	_ = r.held.Set(nil)
	r.mu.Unlock()
	r.logger.Info("Lease not renewed in time; stopped working on every range")
	select {
	case r.abandon <- struct{}{}:
	default: // a drain is already owed; it covers this fence too
	}
}

// abandonLoop tells the Drainers to abandon all work after each fence,
// waiting up to LeaseDuration for each such drain, until ctx ends. A drain
// cut short by ctx is left owed, for stop.
func (r *Ring) abandonLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.abandon:
		}
		dctx, cancel := context.WithTimeout(ctx, r.cfg.LeaseDuration)
		err := r.drain(dctx, nil, true)
		cancel()
		switch {
		case ctx.Err() != nil:
			select {
			case r.abandon <- struct{}{}:
			default: // a later fence already left one
			}
			return
		case err != nil:
			r.logger.Error(err, "Abandoning work after losing the Lease")
		}
	}
}

// drainRelease waits for the Drainers to finish the work outside held
// after a release. Until it returns, the released ranges are claimed by
// this replica and worked on by nobody, so the wait is bounded: work still
// running after LeaseDuration (a reconcile stuck on a call that never
// answers) is cancelled, and the ranges are recorded as released once it
// has returned. Only ctx ending stops the second wait.
func (r *Ring) drainRelease(ctx context.Context, held []Range) error {
	dctx, cancel := context.WithTimeout(ctx, r.cfg.LeaseDuration)
	err := r.drain(dctx, held, false)
	cancel()
	if err == nil || ctx.Err() != nil {
		return err
	}
	r.logger.Info("Work on released ranges still running after the Lease duration; cancelling it", "leaseDuration", r.cfg.LeaseDuration)
	return r.drain(ctx, held, true)
}

func (r *Ring) drain(ctx context.Context, held []Range, abandon bool) error {
	r.mu.Lock()
	ds := slices.Clone(r.drainers)
	r.mu.Unlock()
	for _, d := range ds {
		if err := d.Drain(ctx, held, abandon); err != nil {
			return err
		}
	}
	return nil
}

// ringView is one read of the ring's Leases.
type ringView struct {
	members []string
	// claims is the union of the claims of the live Leases other than ours.
	claims []Range
}

func (r *Ring) read(ctx context.Context) (ringView, error) {
	ctx, cancel := r.callContext(ctx)
	defer cancel()
	list, err := r.cfg.Leases.List(ctx, metav1.ListOptions{LabelSelector: RingLabel + "=" + r.cfg.Name})
	if err != nil {
		return ringView{}, fmt.Errorf("listing the ring's Leases: %w", err)
	}
	now := r.clock.Now()
	v := ringView{members: []string{r.cfg.Identity}}
	for i := range list.Items {
		l := &list.Items[i]
		if l.Name == r.leaseName || l.Spec.HolderIdentity == nil {
			continue
		}
		until, ok := expiry(l)
		if !ok || !now.Before(until) {
			continue
		}
		claims, err := ParseRanges(l.Annotations[HeldAnnotation])
		if err != nil {
			r.logger.Info("Unreadable claims on a live Lease; treating them as the whole space", "lease", l.Name, "err", err)
			claims = []Range{Full()}
		}
		v.claims = Union(v.claims, claims)
		if !slices.Contains(v.members, *l.Spec.HolderIdentity) {
			v.members = append(v.members, *l.Spec.HolderIdentity)
		}
	}
	slices.Sort(v.members)
	return v, nil
}

// step reads the ring once, releases what the replica should no longer
// hold and acquires what it should hold and nobody claims.
func (r *Ring) step(ctx context.Context) error {
	r.fenceIfExpired()
	v, err := r.read(ctx)
	if err != nil {
		return err
	}
	assigned, err := Assign(v.members, r.cfg.VNodes)
	if err != nil {
		return err
	}
	desired := assigned[r.cfg.Identity]
	now := r.clock.Now()

	r.mu.Lock()
	r.members, r.desired = v.members, desired
	if !r.inheritedUntil.IsZero() && !now.Before(r.inheritedUntil) {
		r.claims, r.inheritedUntil = nil, time.Time{}
	}
	held := r.held.Ranges()
	_ = r.cache.Set(Union(held, desired))
	blocked := !r.validLocked(now) || !r.inheritedUntil.IsZero()
	r.mu.Unlock()
	if blocked {
		return nil
	}

	// Release: stop, drain, then record. The write is the commit point.
	if lose := Subtract(held, desired); len(lose) > 0 {
		r.mu.Lock()
		kept := Subtract(r.held.Ranges(), lose)
		_ = r.held.Set(kept)
		r.mu.Unlock()
		r.logger.V(2).Info("Releasing ranges", "space", SpaceOf(lose))
		if err := r.drainRelease(ctx, kept); err != nil {
			return fmt.Errorf("draining released ranges: %w", err)
		}
		r.mu.Lock()
		r.claims = Subtract(r.claims, lose)
		r.mu.Unlock()
		if err := r.write(ctx); err != nil {
			return err
		}
	}

	// Acquire: claim what is desired and unclaimed, record the claim, then
	// check that nobody else claimed it meanwhile.
	r.mu.Lock()
	held = r.held.Ranges()
	r.claims = Union(held, Intersect(r.claims, desired))
	want := Subtract(Subtract(desired, held), v.claims)
	if len(want) == 0 {
		r.mu.Unlock()
		return nil
	}
	r.claims = Union(r.claims, want)
	epoch := r.epoch
	r.mu.Unlock()
	if err := r.write(ctx); err != nil {
		return err
	}
	v2, err := r.read(ctx)
	if err != nil {
		return err
	}
	conflict := Intersect(want, v2.claims)
	ok := Subtract(want, v2.claims)
	r.mu.Lock()
	if r.epoch != epoch || !r.validLocked(r.clock.Now()) {
		r.mu.Unlock()
		return nil
	}
	r.claims = Subtract(r.claims, conflict)
	newHeld := Union(r.held.Ranges(), ok)
	_ = r.cache.Set(Union(newHeld, r.desired))
	_ = r.held.Set(newHeld)
	r.mu.Unlock()
	if len(ok) > 0 {
		r.logger.V(2).Info("Acquired ranges", "space", SpaceOf(ok))
	}
	if len(conflict) > 0 {
		r.logger.V(2).Info("Another replica claimed the same ranges; withdrawing", "space", SpaceOf(conflict))
		return r.write(ctx)
	}
	return nil
}

package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// Controller runs a Reconciler for Requests produced by its watches. Create
// it with New, wire informers with Watch, then call Start once.
type Controller struct {
	name       string
	reconciler Reconciler
	opts       Options
	logger     klog.Logger
	clock      clock.PassiveClock
	queue      workqueue.TypedPriorityInterface[Request]
	metrics    Metrics
	recover    bool
	lowInitial bool

	mu      sync.Mutex
	started bool
	watches []watch
	// running is the context of Start, for watches added after it.
	running context.Context

	activeMu sync.Mutex
	active   int

	// shard is the sharded mode's state, nil without Options.Sharding.
	shard *sharded
}

// watch is one informer wired to the controller; start registers its
// handler and returns what to wait for and how to unregister.
type watch struct {
	start func(ctx context.Context) (cache.Syncer, func(), error)
}

// New returns a controller named name (used in logs and metrics) that calls
// r. It fails if name is empty or r is nil.
func New(name string, r Reconciler, opts Options) (*Controller, error) {
	if name == "" {
		return nil, errors.New("controller: name must not be empty")
	}
	if r == nil {
		return nil, fmt.Errorf("controller %q: reconciler must not be nil", name)
	}
	opts = opts.withDefaults()
	logger := klog.Background()
	if opts.Logger != nil {
		logger = *opts.Logger
	}
	c := &Controller{
		name:       name,
		reconciler: r,
		opts:       opts,
		logger:     logger.WithValues("controller", name),
		clock:      opts.Clock,
		metrics:    opts.Metrics,
		recover:    *opts.RecoverPanic,
		lowInitial: *opts.PrioritizeLiveEvents,
	}
	if c.metrics == nil {
		c.metrics = noMetrics{}
	}
	if opts.NewQueue != nil {
		c.queue = opts.NewQueue(name, opts.RateLimiter)
	} else {
		c.queue = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[Request]{
			Name:            name,
			Clock:           opts.Clock,
			RateLimiter:     opts.RateLimiter,
			MetricsProvider: opts.QueueMetricsProvider,
		})
	}
	if opts.Sharding != nil {
		if opts.Sharding.Ring == nil || opts.Sharding.List == nil || opts.Sharding.UID == nil {
			return nil, fmt.Errorf("controller %q: Options.Sharding needs Ring, UID and List (see ShardingFor)", name)
		}
		c.shard = newSharded(c, opts.Sharding)
		c.queue = shardQueue{Queue: c.queue, s: c.shard}
		opts.Sharding.Ring.AddDrainer(c.shard)
	}
	return c, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string { return c.name }

// Queue returns the controller's work queue, e.g. to enqueue a Request from
// outside any watch. Callers must not Get from it or shut it down.
func (c *Controller) Queue() workqueue.TypedPriorityInterface[Request] { return c.queue }

// Start registers the watches' handlers, waits up to CacheSyncTimeout for
// their informers to sync (it does not start informers: the caller starts
// them, e.g. through a factory), waits for Options.Gate, starts the
// workers and blocks until ctx is done. Then it shuts the queue down,
// lets the reconciles in flight finish (requests still queued are dropped),
// unregisters the handlers and returns nil.
//
// It returns an error if it was already called, if a handler cannot be
// registered, or if the caches did not sync in time: then the error wraps
// the *cache.NotSyncedError that names each informer and its last list or
// watch error. If ctx ends before the caches synced, Start returns nil.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %q: already started", c.name)
	}
	c.started = true
	if c.opts.Logger == nil {
		// Contextual logging: the caller's logger, named after us.
		c.logger = klog.FromContext(ctx).WithValues("controller", c.name)
	}
	ctx = klog.NewContext(ctx, c.logger)
	c.running = ctx
	watches := c.watches
	c.mu.Unlock()
	if c.shard != nil {
		c.shard.snapshotHeld()
	}

	defer c.queue.ShutDown()

	var (
		syncers []cache.Syncer
		stops   []func()
	)
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for _, w := range watches {
		s, stop, err := w.start(ctx)
		if err != nil {
			return fmt.Errorf("controller %q: %w", c.name, err)
		}
		syncers = append(syncers, s)
		stops = append(stops, stop)
	}

	c.logger.Info("Waiting for caches to sync", "informers", len(syncers))
	syncCtx, cancel := context.WithTimeout(ctx, c.opts.CacheSyncTimeout)
	err := cache.WaitForSync(syncCtx, syncers...)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("controller %q: waiting for caches to sync: %w", c.name, err)
	}

	if c.opts.Gate != nil {
		c.logger.V(2).Info("Waiting for the gate to open")
		select {
		case <-c.opts.Gate:
		case <-ctx.Done():
			return nil
		}
	}

	if c.shard != nil {
		go c.shard.sweep(ctx, c.shard.sweepOnce())
	}
	workers := c.opts.MaxConcurrentReconciles
	c.logger.Info("Starting workers", "count", workers)
	c.metrics.SetMaxWorkers(c.name, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}

	<-ctx.Done()
	c.logger.Info("Stopping workers")
	c.queue.ShutDownWithDrain()
	wg.Wait()
	c.logger.Info("All workers finished")
	return nil
}

// processNext takes one request and reconciles it; false means the queue is
// shut down and the worker should return.
func (c *Controller) processNext(ctx context.Context) bool {
	req, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(req)
	if ctx.Err() != nil {
		// Stopping: drop what is still queued.
		return true
	}
	if c.shard != nil {
		rctx, ok := c.shard.begin(ctx, req)
		if !ok {
			c.queue.Forget(req) // not ours (any more): the owner reconciles it
			return true
		}
		defer c.shard.end(req)
		ctx = rctx
	}
	c.setActive(+1)
	defer c.setActive(-1)
	c.reconcileHandler(ctx, req)
	return true
}

func (c *Controller) setActive(d int) {
	c.activeMu.Lock()
	c.active += d
	n := c.active
	c.metrics.SetActiveWorkers(c.name, n)
	c.activeMu.Unlock()
}

// reconcileHandler calls the reconciler and acts on its outcome.
func (c *Controller) reconcileHandler(ctx context.Context, req Request) {
	logger := c.logger.WithValues("request", req.String(), "namespace", req.Namespace, "name", req.Name)
	ctx = klog.NewContext(ctx, logger)
	start := c.clock.Now()
	result, err, panicked := c.reconcile(ctx, req)
	took := c.clock.Since(start)

	switch {
	case panicked:
		c.queue.AddRateLimited(req)
		c.metrics.ObserveReconcile(c.name, OutcomePanic, err, took)
		logger.Error(err, "Reconciler panicked; retrying")
	case err != nil && IsTerminal(err):
		c.queue.Forget(req)
		c.metrics.ObserveReconcile(c.name, OutcomeError, err, took)
		logger.Error(err, "Reconciler returned a terminal error; not retrying")
	case err != nil:
		if !result.IsZero() {
			logger.Info("Reconciler returned both a result and an error; the result is ignored", "result", result)
		}
		c.queue.AddRateLimited(req)
		c.metrics.ObserveReconcile(c.name, OutcomeError, err, took)
		logger.Error(err, "Reconciler error; retrying", "retries", c.queue.NumRequeues(req))
	case result.RequeueAfter > 0:
		c.queue.Forget(req)
		c.queue.AddAfter(req, result.RequeueAfter)
		c.metrics.ObserveReconcile(c.name, OutcomeRequeueAfter, nil, took)
		logger.V(5).Info("Reconcile done, requeueing after", "after", result.RequeueAfter)
	case result.Requeue:
		c.queue.AddRateLimited(req)
		c.metrics.ObserveReconcile(c.name, OutcomeRequeue, nil, took)
		logger.V(5).Info("Reconcile done, requeueing")
	default:
		c.queue.Forget(req)
		c.metrics.ObserveReconcile(c.name, OutcomeSuccess, nil, took)
		logger.V(5).Info("Reconcile successful")
	}
}

// reconcile calls the reconciler, turning a panic into an error when
// RecoverPanic is on.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error, panicked bool) {
	if c.recover {
		defer func() {
			if v := recover(); v != nil {
				res, err, panicked = Result{}, fmt.Errorf("reconciling %s: %w", req, &panicError{value: v}), true
			}
		}()
	}
	res, err = c.reconciler.Reconcile(ctx, req)
	return res, err, false
}

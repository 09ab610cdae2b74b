package controller

import (
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// Defaults of Options.
const (
	DefaultMaxConcurrentReconciles = 1
	DefaultCacheSyncTimeout        = 2 * time.Minute
	DefaultRecoverPanic            = true
	DefaultPrioritizeLiveEvents    = true
)

// Options configures New. The zero value gives the documented defaults.
type Options struct {
	// MaxConcurrentReconciles is the number of workers. Default (0 or
	// less) DefaultMaxConcurrentReconciles (1).
	MaxConcurrentReconciles int
	// RateLimiter paces retries of failed and Requeue'd requests. Default
	// workqueue.DefaultTypedControllerRateLimiter (5ms doubling to 1000s per
	// request, 10 qps / 100 burst overall).
	RateLimiter workqueue.TypedRateLimiter[Request]
	// CacheSyncTimeout bounds how long Start waits for the watched
	// informers to sync. Default (0 or less) DefaultCacheSyncTimeout (2
	// minutes).
	CacheSyncTimeout time.Duration
	// RecoverPanic recovers a panicking Reconcile, counts it and retries the
	// request like an error. Default (nil) DefaultRecoverPanic (true); set
	// to a false value to let panics crash the process.
	RecoverPanic *bool
	// Logger is the base logger; the controller adds "controller"=name.
	// Default: the logger of the context passed to Start
	// (klog.FromContext, which is klog.Background() when it has none).
	Logger *klog.Logger
	// Gate, when set, holds the workers after the caches synced until it is
	// closed (e.g. by leader election). Events are queued meanwhile.
	Gate <-chan struct{}
	// PrioritizeLiveEvents queues objects of an informer's initial list at
	// workqueue.PriorityLow, behind live events. Default (nil)
	// DefaultPrioritizeLiveEvents (true).
	PrioritizeLiveEvents *bool
	// Metrics receives reconcile metrics. Default: none.
	Metrics Metrics
	// QueueMetricsProvider receives the work queue's metrics, named after
	// the controller. Default: none.
	QueueMetricsProvider workqueue.MetricsProvider
	// Clock drives the queue's delays and reconcile durations. Default: the
	// real clock.
	Clock clock.WithTicker
	// NewQueue builds the work queue instead of workqueue.NewTypedWithConfig. It is given
	// the controller's name and the rate limiter (after defaulting).
	NewQueue func(name string, rateLimiter workqueue.TypedRateLimiter[Request]) workqueue.TypedPriorityInterface[Request]
	// Sharding, when set, makes the controller reconcile only the keys its
	// ring holds; see Sharding and ShardingFor. Default: every key.
	Sharding *Sharding
}

// withDefaults returns o with every unset field given its documented
// default. It is the only place those defaults are applied. Logger stays
// nil when unset: its default is resolved by Start, from its context.
func (o Options) withDefaults() Options {
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	if o.CacheSyncTimeout <= 0 {
		o.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.RateLimiter == nil {
		o.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[Request]()
	}
	if o.RecoverPanic == nil {
		o.RecoverPanic = ptrTo(DefaultRecoverPanic)
	}
	if o.PrioritizeLiveEvents == nil {
		o.PrioritizeLiveEvents = ptrTo(DefaultPrioritizeLiveEvents)
	}
	return o
}

func ptrTo[V any](v V) *V { return &v }

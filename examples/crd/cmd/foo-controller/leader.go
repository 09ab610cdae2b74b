package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// errLeaderLost is why a replica stops after its lease was taken or could
// not be renewed in time: another replica may be reconciling already, so
// this one drains and exits non-zero to be restarted as a candidate.
var errLeaderLost = errors.New("leader election lost")

// leaderElection holds the --leader-elect* flags, named as
// kube-controller-manager's and controller-runtime's users know them.
type leaderElection struct {
	enabled       bool
	namespace     string
	id            string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
	// identity names this replica in the Lease; empty picks
	// <hostname>_<random>, unique per process.
	identity string
}

// addLeaderElectionFlags registers the leader election flags on fs, with
// client-go's and controller-runtime's defaults (15 s, 10 s, 2 s).
func addLeaderElectionFlags(fs *flag.FlagSet) *leaderElection {
	le := &leaderElection{}
	fs.BoolVar(&le.enabled, "leader-elect", false, "with --kubeconfig: elect a leader on a coordination.k8s.io Lease; only the leader reconciles, the others keep their caches synced and wait")
	fs.StringVar(&le.namespace, "leader-election-namespace", "default", "namespace of the leader election Lease")
	fs.StringVar(&le.id, "leader-election-id", "foo-controller.samples.typedinformer.dev", "name of the leader election Lease")
	fs.DurationVar(&le.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a non-leader waits after the last observed renewal before it takes the Lease over")
	fs.DurationVar(&le.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader keeps retrying a renewal before it gives up leadership (less than the lease duration)")
	fs.DurationVar(&le.retryPeriod, "leader-elect-retry-period", 2*time.Second, "how long candidates wait between attempts to acquire or renew the Lease")
	return le
}

// newIdentity returns <hostname>_<16 random hex digits>: the hostname tells
// an operator where the leader runs, the suffix keeps two processes on one
// host apart.
func newIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return host + "_" + hex.EncodeToString(b[:]), nil
}

// leaderStatus is controller-runtime's leader_election_master_status gauge:
// 1 while this replica holds the Lease named by the label, else 0.
func leaderStatus(reg prometheus.Registerer) (*prometheus.GaugeVec, error) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "1 while this replica is the leader of the lease named by 'name', else 0.",
	}, []string{"name"})
	if err := reg.Register(g); err != nil {
		return nil, fmt.Errorf("registering leader_election_master_status: %w", err)
	}
	return g, nil
}

// runElected runs run (the controller's Start, whose workers wait for gate)
// while campaigning for the Lease; gate is closed once this replica leads.
//
// Order of shutdown: when ctx ends, run drains its in-flight reconciles and
// returns; only then is the campaign stopped, which releases the Lease
// (ReleaseOnCancel) so that a successor takes over at once instead of after
// a lease duration, and never while this replica still reconciles. When the
// Lease is lost instead, run's context is cancelled, run drains, and
// runElected returns errLeaderLost (wrapped with run's own error, if any).
// status, when not nil, is set to 1 while leading and 0 otherwise.
// fence, when not nil, learns of every renewal of this replica's Lease the
// server accepts (see leaseFence); its identity must be le.identity.
func runElected(ctx context.Context, le *leaderElection, kube kubernetes.Interface, gate chan<- struct{}, status *prometheus.GaugeVec, fence *leaseFence, run func(ctx context.Context) error) error {
	identity := le.identity
	if identity == "" {
		var err error
		if identity, err = newIdentity(); err != nil {
			return err
		}
	}
	var lock resourcelock.Interface = &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.namespace, Name: le.id},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	if fence != nil {
		if fence.identity != identity {
			return fmt.Errorf("--leader-elect: the lease fence is for %q, not this replica's identity %q", fence.identity, identity)
		}
		lock = fence.wrap(lock)
	}
	logger := klog.FromContext(ctx).WithValues("lease", le.namespace+"/"+le.id, "identity", identity)

	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	// The campaign outlives ctx: it ends after run has drained.
	campaignCtx, stopCampaign := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), logger))
	defer stopCampaign()

	setStatus := func(v float64) {
		if status != nil {
			status.WithLabelValues(le.id).Set(v)
		}
	}
	setStatus(0)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		Name:            le.id,
		LeaseDuration:   le.leaseDuration,
		RenewDeadline:   le.renewDeadline,
		RetryPeriod:     le.retryPeriod,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				logger.Info("Became the leader; starting to reconcile")
				setStatus(1)
				close(gate)
			},
			// Called whenever the campaign ends, led or not.
			OnStoppedLeading: func() {
				setStatus(0)
				if campaignCtx.Err() == nil {
					logger.Info("Lost the lease; draining and stopping")
					stopRun(errLeaderLost)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("--leader-elect: %w", err)
	}
	logger.Info("Campaigning for the lease; caches sync meanwhile, reconciles wait")
	campaignDone := make(chan struct{})
	go func() {
		defer close(campaignDone)
		elector.Run(campaignCtx)
	}()

	runErr := run(runCtx)
	stopCampaign()
	<-campaignDone
	if errors.Is(context.Cause(runCtx), errLeaderLost) {
		if runErr != nil {
			return fmt.Errorf("%w (and: %w)", errLeaderLost, runErr)
		}
		return errLeaderLost
	}
	return runErr
}

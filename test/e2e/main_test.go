package e2e

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// cluster is the etcd + kube-apiserver every test in this package shares.
// Tests that restart or partition it do not run in parallel.
var cluster *framework.Cluster

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	start := time.Now()
	bins, err := framework.FindBinaries()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cluster, err = framework.Start(ctx, bins)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting the cluster: %v\n", err)
		return 1
	}
	// Stop the cluster on every way out: return, panic in TestMain, or a
	// signal (a failing test's panic kills the process; Pdeathsig then
	// takes the children down and hack/e2e.sh removes the work dir).
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stopping the cluster: %v\n", err)
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: %v: stopping the cluster\n", sig)
		_ = cluster.Stop()
		os.Exit(2)
	}()
	fmt.Fprintf(os.Stderr, "e2e: cluster ready in %v at %s (work dir %s)\n",
		time.Since(start).Round(time.Millisecond), cluster.APIServer().Host, cluster.Dir)
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "e2e: kube-apiserver log tail:\n%s\n", cluster.APIServer().LogTail())
	}
	return code
}

package crcache_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// cluster is the etcd + kube-apiserver every test shares.
var cluster *framework.Cluster

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	bins, err := framework.FindBinaries()
	if err != nil {
		fmt.Fprintf(os.Stderr, "crcache: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if cluster, err = framework.Start(ctx, bins); err != nil {
		fmt.Fprintf(os.Stderr, "crcache: starting the cluster: %v\n", err)
		return 1
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "crcache: stopping the cluster: %v\n", err)
		}
	}()
	return m.Run()
}

func adminConfig() *rest.Config { return cluster.AdminConfig() }

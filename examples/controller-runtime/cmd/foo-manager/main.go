// Command foo-manager runs examples/crd's Foo controller as a
// controller-runtime manager against the cluster of --kubeconfig (or the
// in-cluster config).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/typedinformer/typedinformer/examples/controller-runtime/foocontroller"
)

func main() {
	var namespaces string
	flag.StringVar(&namespaces, "namespaces", "", "comma-separated namespaces to cache and reconcile (empty: all)")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))

	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
	var nss []string
	if namespaces != "" {
		nss = strings.Split(namespaces, ",")
	}
	mgr, err := foocontroller.NewManager(cfg, nil, nss...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
}

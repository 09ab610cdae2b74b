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

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/examples/controller-runtime/foocontroller"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

func main() {
	var namespaces, informers string
	var leanCache bool
	flag.StringVar(&namespaces, "namespaces", "", "comma-separated namespaces to cache and reconcile (empty: all)")
	flag.StringVar(&informers, "informers", "typedinformer", "the cache's informers: typedinformer or client-go")
	flag.BoolVar(&leanCache, "lean", false, "with --informers=typedinformer: cache lean objects (lean.Default(): no managedFields, interned strings)")
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
	var newInformer foocontroller.NewInformerFunc
	switch informers {
	case "typedinformer":
		var opts []clientgo.Option
		if leanCache {
			opts = append(opts, clientgo.WithLean(lean.Default()))
		}
		newInformer = clientgo.NewInformerFunc(opts...)
	case "client-go":
		if leanCache {
			fmt.Fprintln(os.Stderr, "foo-manager: --lean needs --informers=typedinformer")
			os.Exit(2)
		}
	default:
		fmt.Fprintf(os.Stderr, "foo-manager: --informers=%q: want typedinformer or client-go\n", informers)
		os.Exit(2)
	}
	mgr, err := foocontroller.NewManager(cfg, foocontroller.Options{NewInformer: newInformer, Namespaces: nss})
	if err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
}

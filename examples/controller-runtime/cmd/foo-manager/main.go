// Command foo-manager runs examples/crd's Foo controller as a
// controller-runtime manager against the cluster of --kubeconfig (or the
// in-cluster config).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/crcache"
	"github.com/typedinformer/typedinformer/examples/controller-runtime/foocontroller"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

func main() {
	var namespaces, cacheName, informers string
	var leanCache bool
	flag.StringVar(&namespaces, "namespaces", "", "comma-separated namespaces to cache and reconcile (empty: all)")
	flag.StringVar(&cacheName, "cache", "crcache", "the manager's cache: crcache (typedinformer's runtime fed from the wire) or controller-runtime (its own cache.New)")
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
	var newCache cache.NewCacheFunc
	switch cacheName {
	case "crcache":
		newCache = crcache.New
	case "controller-runtime":
		newCache = cache.New
	default:
		fmt.Fprintf(os.Stderr, "foo-manager: --cache=%q: want crcache or controller-runtime\n", cacheName)
		os.Exit(2)
	}
	var newInformer foocontroller.NewInformerFunc
	switch {
	case informers == "typedinformer" && leanCache:
		newInformer = clientgo.NewInformerFunc(clientgo.WithLean(lean.Default()))
	case informers == "typedinformer":
		newInformer = clientgo.NewSharedIndexInformer
	case informers == "client-go" && leanCache:
		fmt.Fprintln(os.Stderr, "foo-manager: --lean needs --informers=typedinformer")
		os.Exit(2)
	case informers == "client-go":
		newInformer = toolscache.NewSharedIndexInformer
	default:
		fmt.Fprintf(os.Stderr, "foo-manager: --informers=%q: want typedinformer or client-go\n", informers)
		os.Exit(2)
	}
	mgr, err := foocontroller.NewManager(cfg, foocontroller.Options{NewCache: newCache, NewInformer: newInformer, Namespaces: nss})
	if err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, "foo-manager:", err)
		os.Exit(1)
	}
}

// Command informer-gen generates typed shared informers, listers and an
// informer factory for Kubernetes API packages, in one run, on top of the
// typedinformer runtime.
//
// Usage:
//
//	informer-gen [generate] PATTERNS... --output-dir DIR --output-pkg PKG \
//	    --versioned-clientset-package CLIENTSET [--listers-package PKG] \
//	    [--listers-output-dir DIR] [--go-header-file FILE] \
//	    [--plural-exceptions T:P,...] [--single-directory] [-v N]
//	informer-gen verify PATTERNS... (same flags)
//	informer-gen version
//
// See `informer-gen --help` for the tags it reads and its exit codes.
//
// # Coming from k8s.io/code-generator
//
// Every flag of upstream informer-gen and lister-gen is accepted with
// upstream's meaning, so kube_codegen.sh's informer-gen command line works
// unchanged, and the output has upstream's shape, so code ports by swapping
// imports. With --listers-package (which upstream requires) --output-dir is
// the informers directory, as upstream reads it; without it, --output-dir is
// the parent of informers/ and listers/. A command line that would write
// informers/informers is refused. The differences:
//
//   - One run writes informers and listers: <output-dir>/externalversions and
//     the --listers-package directory (<output-dir>/informers/externalversions
//     and <output-dir>/listers without --listers-package). Drop --with-watch
//     from kube::codegen::gen_client, whose lister-gen and informer-gen would
//     replace these files.
//   - klog's flags other than -v and --vmodule, --internal-clientset-package
//     and --lint-rules are accepted and ignored.
//   - Informer() returns the runtime's typed cache.SharedIndexInformer[*T];
//     there are no Typed*/To* adapter variants and no internal versions.
//   - A type gets a lister only when it has the list and get verbs (upstream
//     lister-gen also emits listers for +genclient:noVerbs types); an
//     informer whose type has no lister has no Lister method.
//   - +k8s:informer-gen=false and +k8s:lister-gen=false work on a type as well
//     as on a package.
//   - The group comes from +groupName, or from the package's GroupName
//     constant, never from the directory alone.
//   - ForResource matches literal GroupVersionResources, so API packages need
//     no SchemeGroupVersion variable.
//   - Listers' NotFound errors name the plural resource ("widgets"), as the
//     API server does.
//   - Endpoints:Endpoints is a default plural exception.
//   - An unknown verb in +genclient:onlyVerbs or :skipVerbs is an error.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
)

func main() {
	// A run holds every rendered file until it writes them all at once, so
	// most of its heap is live at the end: collecting at half the default
	// growth keeps the peak near that live set for little CPU. GOGC, when
	// set, wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Command informer-gen generates typed shared informers, listers and an
// informer factory for Kubernetes API packages, in one run, on top of the
// typedinformer runtime. See `informer-gen --help`.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

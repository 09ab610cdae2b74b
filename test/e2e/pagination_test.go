package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// TestPaginatedInitialList gives an informer more objects than fit on one
// page: it must follow the continue tokens and end with every object.
// PodTemplates are served without a watch cache here, so the server honours
// the page size even for the informer's first list at resourceVersion "0"
// (the watch cache ignores limits at "0").
func TestPaginatedInitialList(t *testing.T) {
	ctx := context.Background()
	c, namespaces := adminIn(t, 3)
	label := testLabel(t)
	o := podTemplateOps(c, label)
	const perNamespace, pageSize = 40, 7
	if err := parallel(len(namespaces)*perNamespace, func(i int) error {
		ns := namespaces[i%len(namespaces)]
		_, err := o.create(ctx, ns, fmt.Sprintf("pt-%03d", i), i)
		return err
	}); err != nil {
		t.Fatalf("creating PodTemplates: %v", err)
	}

	calls := &callLog{}
	inf := newPodTemplateInformer(c, "", informerOptions{label: label, calls: calls,
		reflector: cache.ReflectorOptions{PageSize: pageSize, DisableWatchList: true}}) // the paginated list path
	rec, reg := recordOn(t, inf)
	runInformer(t, inf)
	waitSynced(t, inf, reg)
	eventually(t, time.Minute, "paginated cache equals the server", func() error {
		return matchesServer(ctx, inf.GetStore(), o)
	})

	lists := calls.listCalls()
	want := (len(namespaces)*perNamespace + pageSize - 1) / pageSize
	if len(lists) < want {
		t.Fatalf("informer made %d list calls for %d objects at page size %d, want at least %d", len(lists), len(namespaces)*perNamespace, pageSize, want)
	}
	for i, l := range lists[:want] {
		if l.err != nil {
			t.Fatalf("list call %d failed: %v", i, l.err)
		}
		if l.opts.Limit != pageSize {
			t.Errorf("list call %d asked for limit %d, want %d", i, l.opts.Limit, pageSize)
		}
		if i > 0 && l.opts.Continue != lists[i-1].cont {
			t.Errorf("list call %d sent continue %q, want the previous page's %q", i, l.opts.Continue, lists[i-1].cont)
		}
		if last := i == want-1; (l.cont == "") != last {
			t.Errorf("list call %d returned %d items with continue %q", i, l.items, l.cont)
		}
	}
	if err := rec.check(); err != nil {
		t.Fatal(err)
	}
	server, err := o.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffVersions(rec.viewVersions(), versions(server)); d != "" {
		t.Fatalf("handler's view: %s", d)
	}
	for k := range rec.viewVersions() {
		if ev := rec.events(k); len(ev) != 1 || ev[0].kind != added || !ev[0].initial {
			t.Fatalf("%s: handler was told %v, want one add from the initial list", k, ev)
		}
	}
}

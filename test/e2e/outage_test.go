package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// outage drives one informer through a period in which it cannot reach
// the server while objects change: prepare before, change during, verify
// after.
type outage[T cache.Object] struct {
	watched[T]
	rec *recorder[T]

	namespaces []string
	existing   []T               // objects created in prepare
	created    map[string]bool   // keys created during the outage
	updated    map[string]string // key -> resourceVersion written during the outage
	deleted    map[string]bool   // keys deleted during the outage
}

const outageObjectsPerNamespace = 40

// prepare creates objects, runs the informer and waits until it has synced
// and is receiving watch events.
func (s *outage[T]) prepare(t *testing.T) {
	ctx := context.Background()
	s.existing = make([]T, len(s.namespaces)*outageObjectsPerNamespace)
	if err := parallel(len(s.existing), func(i int) error {
		obj, err := s.o.create(ctx, s.namespaces[i%len(s.namespaces)], fmt.Sprintf("before-%03d", i), i)
		s.existing[i] = obj
		return err
	}); err != nil {
		t.Fatalf("creating %ss: %v", s.o.kind, err)
	}
	rec, reg := recordOn(t, s.inf)
	s.rec = rec
	s.start()
	waitSynced(t, s.inf, reg)
	// One object created after the sync proves the watch delivers.
	probe, err := s.o.create(ctx, s.namespaces[0], "probe", 0)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the informer's watch delivers", func() error {
		got, ok, err := s.inf.GetStore().GetByKey(key(probe))
		if err != nil || !ok || got.GetResourceVersion() != probe.GetResourceVersion() {
			return fmt.Errorf("probe %s not in the cache yet (ok=%v, err=%v)", key(probe), ok, err)
		}
		return nil
	})
}

// change creates, updates and deletes objects through o while the informer
// cannot see the server.
func (s *outage[T]) change(t *testing.T, o ops[T]) {
	ctx := context.Background()
	n := len(s.existing) / 4
	s.created, s.updated, s.deleted = map[string]bool{}, map[string]string{}, map[string]bool{}
	type result struct {
		key, rv string
	}
	results := make([]result, 3*n)
	if err := parallel(3*n, func(i int) error {
		switch {
		case i < n:
			obj, err := o.create(ctx, s.namespaces[i%len(s.namespaces)], fmt.Sprintf("during-%03d", i), i)
			if err != nil {
				return err
			}
			results[i] = result{key(obj), "created"}
		case i < 2*n:
			obj, err := o.update(ctx, s.existing[i-n], 5000+i)
			if err != nil {
				return err
			}
			results[i] = result{key(obj), obj.GetResourceVersion()}
		default:
			old := s.existing[i-n]
			if err := o.remove(ctx, old.GetNamespace(), old.GetName()); err != nil {
				return err
			}
			results[i] = result{key(old), "deleted"}
		}
		return nil
	}); err != nil {
		t.Fatalf("changing %ss during the outage: %v", s.o.kind, err)
	}
	for _, r := range results {
		switch r.rv {
		case "created":
			s.created[r.key] = true
		case "deleted":
			s.deleted[r.key] = true
		default:
			s.updated[r.key] = r.rv
		}
	}
}

// verify waits until the informer and its handler caught up with the
// server and checks how each change was delivered: deletes the informer
// missed arrive as OnDelete with finalStateUnknown.
func (s *outage[T]) verify(t *testing.T) {
	ctx := context.Background()
	eventually(t, 2*time.Minute, s.o.kind+" cache equals the server after the outage", func() error {
		return matchesServer(ctx, s.inf.GetStore(), s.o)
	})
	server, err := s.o.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, s.o.kind+" handler caught up after the outage", func() error {
		if d := diffVersions(s.rec.viewVersions(), versions(server)); d != "" {
			return fmt.Errorf("handler's view: %s", d)
		}
		return nil
	})
	if err := s.rec.check(); err != nil {
		t.Fatal(err)
	}
	for k := range s.deleted {
		ev := s.rec.events(k)
		if last := ev[len(ev)-1]; last.kind != deleted || !last.unknown {
			t.Errorf("%s %s deleted during the outage: handler was told %v, want a final OnDelete with finalStateUnknown", s.o.kind, k, ev)
		}
	}
	for k := range s.created {
		if ev := s.rec.events(k); len(ev) != 1 || ev[0].kind != added {
			t.Errorf("%s %s created during the outage: handler was told %v, want one OnAdd", s.o.kind, k, ev)
		}
	}
	for k, rv := range s.updated {
		ev := s.rec.events(k)
		if last := ev[len(ev)-1]; last.kind != updated || last.rv != rv {
			t.Errorf("%s %s updated during the outage to %s: handler was told %v", s.o.kind, k, rv, ev)
		}
	}
}

package fake

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// initialEventsEndAnnotation marks the bookmark that ends a watch-list's
// initial events.
const initialEventsEndAnnotation = "k8s.io/initial-events-end"

// listOptionsKind names ListOptions in 422 Invalid errors, as a real server
// does.
func listOptionsKind() schema.GroupKind {
	return schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}
}

// listerWatcher serves one namespace (or all) of a Server.
type listerWatcher[T cache.Object] struct {
	s         *Server[T]
	namespace string
}

// ListerWatcher returns a cache.ListerWatcher over the objects of namespace
// ("" = all namespaces). Its List returns a *List[T]. See List and Watch for
// the semantics of each option.
func (s *Server[T]) ListerWatcher(namespace string) cache.ListerWatcher {
	return &listerWatcher[T]{s: s, namespace: namespace}
}

// List serves a list like a real API server:
//
//   - ResourceVersion "" is a consistent read of the current state;
//     Limit/Continue paginate it.
//   - "0" is "any": the current state, in one page (Limit is ignored, as by
//     the watch cache).
//   - Another version with ResourceVersionMatch Exact, or with no match and
//     a Limit, is the state at exactly that version (410 Expired, matching
//     ErrExpired, once compacted); with NotOlderThan, or no match and no
//     Limit, it is the current state. A version the server has not reached
//     fails with 504 and a ResourceVersionTooLarge cause.
//   - A continue token resumes the snapshot of its first page; it expires
//     (410, ErrExpired) once that snapshot is compacted.
//   - LabelSelector and FieldSelector (metadata.name, metadata.namespace)
//     filter the items.
//
// Injected faults (FailNextList, FailLists) and the list delay apply first;
// every call counts in Calls and Requests.
func (lw *listerWatcher[T]) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return lw.s.list(ctx, lw.namespace, opts)
}

// Watch serves a watch like a real API server:
//
//   - ResourceVersion "" or "0" without SendInitialEvents starts with a
//     synthetic ADDED for every current object, then streams changes.
//   - Another version replays the remembered changes after it, then
//     streams; once compacted the watch delivers one ERROR event carrying a
//     410 Expired metav1.Status and closes.
//   - SendInitialEvents=true (with ResourceVersionMatch NotOlderThan)
//     streams the current state as ADDED events, then a BOOKMARK annotated
//     "k8s.io/initial-events-end": "true" at the state's resourceVersion,
//     then changes. With WithoutWatchList the request fails with 422.
//   - AllowWatchBookmarks lets SendBookmarks reach the watch.
//   - TimeoutSeconds closes the watch (cleanly) after that long.
//   - Label and field selectors filter events; an object that starts or
//     stops matching is ADDED or DELETED for the watch.
//
// The watch ends when the client calls Stop, ctx ends, or the server closes
// it (DropWatches, ExpireWatches, timeout); the result channel is then
// closed after any queued events. Injected faults (FailNextWatch,
// FailWatches) apply first.
func (lw *listerWatcher[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.s.watch(ctx, lw.namespace, opts)
}

// parseRV parses a non-zero resourceVersion given by a client.
func parseRV(rv string) (uint64, error) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q: %v", rv, err))
	}
	return n, nil
}

func (s *Server[T]) list(ctx context.Context, namespace string, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	s.lists++
	s.requests = append(s.requests, Request{Verb: "list", Namespace: namespace, Options: opts})
	err := s.failNextList
	s.failNextList = nil
	if err == nil {
		err = s.failLists
	}
	delay := s.listDelay
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if delay > 0 {
		t := s.cfg.clock.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C():
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := newFilter(namespace, opts)
	if err != nil {
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	atRV := s.rv
	start := ""
	limit := opts.Limit
	match := opts.ResourceVersionMatch
	switch {
	case opts.Continue != "":
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		if match != "" {
			return nil, apierrors.NewBadRequest("resourceVersionMatch is forbidden when continue is provided")
		}
		tok, err := decodeContinue(opts.Continue)
		if err != nil {
			return nil, err
		}
		if tok.RV < s.compactedRV {
			return nil, newExpired("The provided continue parameter is too old to display a consistent list result (resourceVersion %d, compacted at %d). You can start a new list without the continue parameter.", tok.RV, s.compactedRV)
		}
		if tok.RV > s.rv {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("continue key is not valid: resourceVersion %d is in the future", tok.RV))
		}
		atRV, start = tok.RV, tok.Start
	case opts.ResourceVersion == "":
		if match != "" {
			return nil, apierrors.NewBadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
	case opts.ResourceVersion == "0":
		switch match {
		case "", metav1.ResourceVersionMatchNotOlderThan:
		case metav1.ResourceVersionMatchExact:
			return nil, apierrors.NewBadRequest(`resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("unsupported resourceVersionMatch %q", match))
		}
		limit = 0 // served from the watch cache, unpaginated
	default:
		r, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return nil, err
		}
		var exact bool
		switch match {
		case metav1.ResourceVersionMatchExact:
			exact = true
		case metav1.ResourceVersionMatchNotOlderThan:
		case "":
			exact = opts.Limit > 0
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("unsupported resourceVersionMatch %q", match))
		}
		if r > s.rv {
			return nil, newTooLarge(r, s.rv)
		}
		if exact {
			if r < s.compactedRV {
				return nil, newExpired("The resourceVersion for the provided list is too old: %d (compacted at %d).", r, s.compactedRV)
			}
			atRV = r
		}
	}

	state := s.stateAtLocked(atRV)
	keys := sortedKeys(state)
	out := &List[T]{ListMeta: metav1.ListMeta{ResourceVersion: formatRV(atRV)}}
	capacity := len(keys)
	if limit > 0 && limit < int64(capacity) {
		capacity = int(limit)
	}
	out.Items = make([]T, 0, capacity)
	var last string
	remaining := int64(0)
	for _, k := range keys {
		if start != "" && k <= start {
			continue
		}
		obj := state[k]
		if !f.matches(obj) {
			continue
		}
		if limit > 0 && int64(len(out.Items)) >= limit {
			remaining++
			continue
		}
		out.Items = append(out.Items, deepCopy(obj))
		last = k
	}
	if remaining > 0 {
		out.Continue = encodeContinue(atRV, last)
		if !f.selects() {
			out.RemainingItemCount = &remaining
		}
	}
	return out, nil
}

func (s *Server[T]) watch(ctx context.Context, namespace string, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches++
	s.requests = append(s.requests, Request{Verb: "watch", Namespace: namespace, Options: opts})
	if err := s.failNextWatch; err != nil {
		s.failNextWatch = nil
		return nil, err
	}
	if err := s.failWatches; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := newFilter(namespace, opts)
	if err != nil {
		return nil, err
	}
	var errs field.ErrorList
	if opts.SendInitialEvents != nil {
		if opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"),
				"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if s.cfg.noWatchList {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"),
				"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
	} else if opts.ResourceVersionMatch != "" {
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"),
			"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(listOptionsKind(), "", errs)
	}

	w := newWatcher(ctx, s, f, opts.AllowWatchBookmarks)
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	var requested uint64
	if rv := opts.ResourceVersion; rv != "" && rv != "0" {
		if requested, err = parseRV(rv); err != nil {
			return nil, err
		}
		if requested > s.rv {
			return nil, newTooLarge(requested, s.rv)
		}
	}
	switch {
	case sendInitial:
		s.sendStateLocked(w, f)
		bm := newEmpty[T]()
		bm.SetResourceVersion(formatRV(s.rv))
		bm.SetAnnotations(map[string]string{initialEventsEndAnnotation: "true"})
		w.send(watch.Event{Type: watch.Bookmark, Object: bm})
	case requested == 0:
		// "" and "0": the current state, then changes; with
		// SendInitialEvents=false only the changes.
		if opts.SendInitialEvents == nil {
			s.sendStateLocked(w, f)
		}
	case requested < s.compactedRV:
		w.closeAfter(watch.Event{Type: watch.Error, Object: tooOldWatchStatus(requested, s.compactedRV)})
		w.start()
		return w, nil
	default:
		for _, c := range s.history[s.historyAfterLocked(requested):] {
			if ev, ok := eventFor(c, f); ok {
				w.send(ev)
			}
		}
	}
	s.watchers[w] = struct{}{}
	s.notifyWatchersChangedLocked()
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		// A fake clock runs the function under its own lock, which
		// closeWatcher's timer.Stop takes too: close from a new goroutine.
		w.timer = s.cfg.clock.AfterFunc(secondsToDuration(*opts.TimeoutSeconds), func() { go s.closeWatcher(w) })
	}
	w.start()
	return w, nil
}

// sendStateLocked sends an ADDED event for every current object f selects,
// in key order. The caller holds mu.
func (s *Server[T]) sendStateLocked(w *watcher[T], f filter) {
	for _, k := range sortedKeys(s.objects) {
		if obj := s.objects[k]; f.matches(obj) {
			w.send(watch.Event{Type: watch.Added, Object: deepCopy(obj)})
		}
	}
}

// historyAfterLocked returns the index of the first remembered change after
// rv. The caller holds mu.
func (s *Server[T]) historyAfterLocked(rv uint64) int {
	lo, hi := 0, len(s.history)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.history[mid].rv <= rv {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

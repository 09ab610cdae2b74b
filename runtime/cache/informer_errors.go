package cache

import (
	"fmt"
	"reflect"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// informerSink is what the informer's reflector feeds: the DeltaFIFO, with
// Replace also forgetting transform errors (a successful list transformed
// every listed object, and the others are gone).
type informerSink[T Object] struct {
	*deltafifo.Queue[T]
	s *sharedIndexInformer[T]
}

// Replace forgets the transform errors and queues the list; see
// ReplaceInScope.
func (w informerSink[T]) Replace(list []T, rv string) error {
	return w.ReplaceInScope(list, rv, nil)
}

// ReplaceInScope forgets the transform errors and queues the list, marking
// the objects that left the scope (see deltafifo.Queue.ReplaceInScope). An
// empty store is first told the list's size per namespace (see
// store.Indexer.ReserveFor).
func (w informerSink[T]) ReplaceInScope(list []T, rv string, inScope func(T) bool) error {
	w.s.clearTransformErrors()
	w.s.indexer.ReserveFor(list)
	return w.Queue.ReplaceInScope(list, rv, inScope)
}

// Bookmark tells the DeltaFIFO the resourceVersion of a watch bookmark, for
// the store resource version metric (see InformerMetricsProvider); without
// that metric it does nothing.
func (w informerSink[T]) Bookmark(rv string) {
	if w.s.idMetrics != nil {
		w.Queue.Bookmark(rv)
	}
}

// checkedTransform wraps the user's transform so that misuse is an error the
// reflector reports (the list fails, or the watch event is dropped) instead
// of a panic or a nil object in the store: a nil result, a result with
// another key, or a panic. Failures are remembered per key for SyncError.
func (s *sharedIndexInformer[T]) checkedTransform() TransformFunc[T] {
	user := s.transform
	if user == nil {
		return nil
	}
	return func(obj T) (T, error) {
		out, err := callTransform(user, obj)
		if err != nil || s.nTransformErr.Load() > 0 {
			s.noteTransform(keys.Of(obj), err)
		}
		return out, err
	}
}

// callTransform runs a transform, checking its result.
func callTransform[T Object](fn TransformFunc[T], obj T) (out T, err error) {
	var zero T
	defer func() {
		if r := recover(); r != nil {
			out, err = zero, fmt.Errorf("transform panicked on %s: %v", keys.StringOf(obj), r)
		}
	}()
	out, err = fn(obj)
	switch {
	case err != nil:
		return zero, err
	case isNilObject(out):
		return zero, fmt.Errorf("transform returned nil for %s", keys.StringOf(obj))
	case out.GetNamespace() != obj.GetNamespace() || out.GetName() != obj.GetName():
		return zero, fmt.Errorf("transform changed the key of %s to %s", keys.StringOf(obj), keys.StringOf(out))
	}
	return out, nil
}

// isNilObject reports whether obj is a nil pointer (or nil interface).
func isNilObject[T Object](obj T) bool {
	v := reflect.ValueOf(obj)
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// noteTransform records (err != nil) or clears the transform error of k.
func (s *sharedIndexInformer[T]) noteTransform(k keys.Key, err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if err != nil {
		s.transformErrs[k] = fmt.Errorf("transforming %s: %w", k, err)
	} else {
		delete(s.transformErrs, k)
	}
	s.nTransformErr.Store(int64(len(s.transformErrs)))
}

func (s *sharedIndexInformer[T]) clearTransformErrors() {
	if s.nTransformErr.Load() == 0 {
		return
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	clear(s.transformErrs)
	s.nTransformErr.Store(0)
}

// transformErrors summarises the recorded transform errors, naming the first
// key in key order; nil when there are none.
func (s *sharedIndexInformer[T]) transformErrors() error {
	if s.nTransformErr.Load() == 0 {
		return nil
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	var first string
	var firstErr error
	for k, err := range s.transformErrs {
		if ks := k.String(); firstErr == nil || ks < first {
			first, firstErr = ks, err
		}
	}
	if firstErr == nil {
		return nil
	}
	if n := len(s.transformErrs); n > 1 {
		return fmt.Errorf("%w (and %d more objects whose latest event was dropped)", firstErr, n-1)
	}
	return fmt.Errorf("%w (its latest event was dropped)", firstErr)
}

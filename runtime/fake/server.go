package fake

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// change is one write the server remembers for watches and exact lists.
type change[T cache.Object] struct {
	typ watch.EventType // Added, Modified or Deleted
	// obj is the state after the change; for Deleted, the last state with
	// the deletion's resourceVersion.
	obj T
	// prev is the state before the change; nil for Added.
	prev T
	rv   uint64
}

// Server is an in-memory API server for one resource whose objects are of
// type T. It keeps the current objects, a bounded history of changes (see
// WithHistory), the open watches, and the faults to inject. Every method is
// safe for concurrent use; objects passed in are deep-copied and objects
// handed out are deep copies the caller owns.
//
// resourceVersions are global to the server: it starts at 1 and every
// create, update and delete adds 1; an object's resourceVersion is the one
// of its last change.
type Server[T cache.Object] struct {
	cfg      serverConfig
	typeName string

	mu      sync.Mutex
	objects map[string]T // key -> stored object (never handed out)
	rv      uint64
	// history holds the changes after compactedRV, oldest first.
	history     []change[T]
	compactedRV uint64

	watchers        map[*watcher[T]]struct{}
	watchersChanged chan struct{} // closed and replaced when watchers changes

	failNextList, failNextWatch error
	failLists, failWatches      error
	listDelay                   time.Duration
	// held is non-nil while HoldWatchEvents holds deliveries; closed by
	// ReleaseWatchEvents.
	held chan struct{}

	lists, watches int
	requests       []Request
	nameSeq        int
}

// Request is one List or Watch call the server received, as Requests
// returns it.
type Request struct {
	// Verb is "list" or "watch".
	Verb string
	// Namespace is the ListerWatcher's namespace ("" = all namespaces).
	Namespace string
	// Options are the options the client sent.
	Options metav1.ListOptions
}

// NewServer returns an empty server at resourceVersion 1.
func NewServer[T cache.Object](opts ...ServerOption) *Server[T] {
	typ := reflect.TypeFor[T]()
	name := typ.String()
	if typ.Kind() == reflect.Pointer {
		name = typ.Elem().Name()
	}
	cfg := serverConfig{
		resource: schema.GroupResource{Resource: pluralOf(name)},
		history:  defaultHistory,
		clock:    clock.RealClock{},
	}
	for _, o := range opts {
		o(&cfg)
	}
	return &Server[T]{
		cfg:             cfg,
		typeName:        name,
		objects:         map[string]T{},
		rv:              1,
		compactedRV:     1,
		watchers:        map[*watcher[T]]struct{}{},
		watchersChanged: make(chan struct{}),
	}
}

// pluralOf lower-cases a Kind and makes a plural of it the simple way.
func pluralOf(kind string) string {
	s := strings.ToLower(kind)
	switch {
	case s == "":
		return "objects"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// Resource returns the resource the server names in its errors.
func (s *Server[T]) Resource() schema.GroupResource { return s.cfg.resource }

func isNil[T cache.Object](obj T) bool {
	v := reflect.ValueOf(obj)
	return !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil())
}

func deepCopy[T cache.Object](obj T) T {
	if isNil(obj) {
		return obj
	}
	return obj.DeepCopyObject().(T)
}

// newEmpty returns a new zero object of T's underlying struct type.
func newEmpty[T cache.Object]() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}

func formatRV(rv uint64) string { return strconv.FormatUint(rv, 10) }

func (s *Server[T]) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: s.cfg.resource.Group, Kind: s.typeName}
}

// Create stores a deep copy of obj with the next resourceVersion and a UID
// (when obj has none) and tells every open watch. A resourceVersion set on
// obj is ignored. An empty name is generated from GenerateName; without
// either Create fails with 422 Invalid. A key that exists fails with 409
// AlreadyExists. It returns a copy of the stored object.
func (s *Server[T]) Create(obj T) (T, error) {
	var zero T
	if isNil(obj) {
		return zero, fmt.Errorf("fake %s: Create: nil object", s.cfg.resource)
	}
	c := deepCopy(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.GetName() == "" {
		if c.GetGenerateName() == "" {
			return zero, apierrors.NewInvalid(s.groupKind(), "", field.ErrorList{
				field.Required(field.NewPath("metadata", "name"), "name or generateName is required"),
			})
		}
		s.nameSeq++
		c.SetName(c.GetGenerateName() + strconv.FormatInt(int64(s.nameSeq), 36))
	}
	key := cache.NewObjectName(c.GetNamespace(), c.GetName()).String()
	if _, exists := s.objects[key]; exists {
		return zero, apierrors.NewAlreadyExists(s.cfg.resource, c.GetName())
	}
	s.rv++
	c.SetResourceVersion(formatRV(s.rv))
	if c.GetUID() == "" {
		c.SetUID(types.UID("fake-uid-" + formatRV(s.rv)))
	}
	s.objects[key] = c
	s.recordLocked(change[T]{typ: watch.Added, obj: c, rv: s.rv})
	return deepCopy(c), nil
}

// Update replaces the stored object with obj's key by a deep copy of obj
// with the next resourceVersion (a new one even when nothing changed) and
// tells every open watch. It fails with 404 NotFound when the key does not
// exist and with 409 Conflict when obj carries a resourceVersion other than
// the stored one (an empty resourceVersion updates unconditionally). The UID
// is kept when obj has none. It returns a copy of the stored object.
func (s *Server[T]) Update(obj T) (T, error) {
	var zero T
	if isNil(obj) {
		return zero, fmt.Errorf("fake %s: Update: nil object", s.cfg.resource)
	}
	c := deepCopy(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	key := cache.NewObjectName(c.GetNamespace(), c.GetName()).String()
	prev, exists := s.objects[key]
	if !exists {
		return zero, apierrors.NewNotFound(s.cfg.resource, c.GetName())
	}
	if rv := c.GetResourceVersion(); rv != "" && rv != prev.GetResourceVersion() {
		return zero, apierrors.NewConflict(s.cfg.resource, c.GetName(),
			fmt.Errorf("the object has been modified (resourceVersion %s, stored %s); please apply your changes to the latest version and try again", rv, prev.GetResourceVersion()))
	}
	s.rv++
	c.SetResourceVersion(formatRV(s.rv))
	if c.GetUID() == "" {
		c.SetUID(prev.GetUID())
	}
	s.objects[key] = c
	s.recordLocked(change[T]{typ: watch.Modified, obj: c, prev: prev, rv: s.rv})
	return deepCopy(c), nil
}

// Delete removes the object namespace/name (namespace "" for cluster-scoped
// objects), failing with 404 NotFound when it does not exist. Open watches
// receive DELETED carrying the last state with the deletion's new
// resourceVersion, as from a real server.
func (s *Server[T]) Delete(namespace, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := cache.NewObjectName(namespace, name).String()
	prev, exists := s.objects[key]
	if !exists {
		return apierrors.NewNotFound(s.cfg.resource, name)
	}
	s.rv++
	gone := deepCopy(prev)
	gone.SetResourceVersion(formatRV(s.rv))
	delete(s.objects, key)
	s.recordLocked(change[T]{typ: watch.Deleted, obj: gone, prev: prev, rv: s.rv})
	return nil
}

// Get returns a copy of the object namespace/name or 404 NotFound.
func (s *Server[T]) Get(namespace, name string) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[cache.NewObjectName(namespace, name).String()]
	if !ok {
		var zero T
		return zero, apierrors.NewNotFound(s.cfg.resource, name)
	}
	return deepCopy(obj), nil
}

// Objects returns copies of every current object, sorted by key.
func (s *Server[T]) Objects() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := sortedKeys(s.objects)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = deepCopy(s.objects[k])
	}
	return out
}

// ResourceVersion returns the server's current resourceVersion: the one of
// its last change, or "1" for a new server.
func (s *Server[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return formatRV(s.rv)
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// recordLocked appends c to the history, forgetting the oldest change when
// the history is full, and sends c to every open watch that selects it. The
// caller holds mu.
func (s *Server[T]) recordLocked(c change[T]) {
	s.history = append(s.history, c)
	if len(s.history) > s.cfg.history {
		s.compactedRV = s.history[0].rv
		s.history[0] = change[T]{}
		s.history = s.history[1:]
	}
	for w := range s.watchers {
		if ev, ok := eventFor(c, w.filter); ok {
			w.send(ev)
		}
	}
}

// stateAtLocked returns the objects as they were at resourceVersion rv,
// which must lie in [compactedRV, rv]. The result must not be modified when
// rv is current (it is then the live map). The caller holds mu.
func (s *Server[T]) stateAtLocked(rv uint64) map[string]T {
	if rv >= s.rv {
		return s.objects
	}
	state := make(map[string]T, len(s.objects))
	for k, v := range s.objects {
		state[k] = v
	}
	for i := len(s.history) - 1; i >= 0 && s.history[i].rv > rv; i-- {
		c := s.history[i]
		key := cache.NewObjectName(c.obj.GetNamespace(), c.obj.GetName()).String()
		if c.typ == watch.Added {
			delete(state, key)
		} else {
			state[key] = c.prev
		}
	}
	return state
}

// eventFor turns a change into the event a watch with filter f sees, if
// any: an object that stops matching a selector is DELETED for that watch
// (carrying its previous state at the change's resourceVersion) and one that
// starts matching is ADDED.
func eventFor[T cache.Object](c change[T], f filter) (watch.Event, bool) {
	switch c.typ {
	case watch.Added:
		if f.matches(c.obj) {
			return watch.Event{Type: watch.Added, Object: deepCopy(c.obj)}, true
		}
	case watch.Modified:
		was, is := f.matches(c.prev), f.matches(c.obj)
		switch {
		case was && is:
			return watch.Event{Type: watch.Modified, Object: deepCopy(c.obj)}, true
		case is:
			return watch.Event{Type: watch.Added, Object: deepCopy(c.obj)}, true
		case was:
			gone := deepCopy(c.prev)
			gone.SetResourceVersion(formatRV(c.rv))
			return watch.Event{Type: watch.Deleted, Object: gone}, true
		}
	case watch.Deleted:
		if f.matches(c.prev) {
			return watch.Event{Type: watch.Deleted, Object: deepCopy(c.obj)}, true
		}
	}
	return watch.Event{}, false
}

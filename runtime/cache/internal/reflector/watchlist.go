package reflector

import (
	"errors"
	"hash/maphash"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// watchListEnv is client-go's environment switch for watch-list streaming;
// "false" turns it off here too, so one setting governs both.
const watchListEnv = "KUBE_FEATURE_WatchListClient"

// errNoStreaming is returned by watchList when the watch it opened is a
// fake watcher (see isFakeWatcher).
var errNoStreaming = errors.New("the client answered with a fake watcher, which never streams the initial state; listing from now on")

// WatchListUnsupported is the optional method by which a client says it
// cannot stream the initial state (the name client-go uses).
type WatchListUnsupported interface {
	// IsWatchListSemanticsUnSupported reports true when the client cannot
	// stream the initial state.
	IsWatchListSemanticsUnSupported() bool
}

// watchListWanted reports whether a reflector over lw should try watch-list
// streaming: not when disabled, when the environment says "false" as it
// does to client-go, or when lw says it cannot stream.
func watchListWanted(disabled bool, lw ListerWatcher) bool {
	if disabled {
		return false
	}
	if v, ok := os.LookupEnv(watchListEnv); ok && strings.EqualFold(strings.TrimSpace(v), "false") {
		return false
	}
	if u, ok := lw.(WatchListUnsupported); ok && u.IsWatchListSemanticsUnSupported() {
		return false
	}
	return true
}

// isFakeWatcher reports whether w is one of apimachinery's fake watchers,
// which client-go's fake clientsets and object trackers return: they never
// send the initial events or the bookmark that ends them.
func isFakeWatcher(w watch.Interface) bool {
	switch w.(type) {
	case *watch.FakeWatcher, *watch.RaceFreeFakeWatcher:
		return true
	}
	return false
}

// initialState resolves a watch-list's initial events evs (the DELETED
// ones at the indexes in deleted, ascending) into the objects they leave:
// the latest object of each key, in the order keys first appeared, a
// DELETED one moving the last object into the place of the one it
// removes. An API server sends one ADDED event per object, so evs is
// usually that state already; it is then returned as it is, without the
// index of every key that resolving them needs.
func initialState[T keys.Object](evs []T, deleted []int) []T {
	if len(deleted) == 0 && distinctKeys(evs) {
		return evs
	}
	items := make([]T, 0, len(evs))
	index := make(map[keys.Key]int, len(evs))
	for i, obj := range evs {
		k := keys.Of(obj)
		j, ok := index[k]
		if len(deleted) > 0 && deleted[0] == i {
			deleted = deleted[1:]
			if ok {
				last := len(items) - 1
				items[j] = items[last]
				index[keys.Of(items[j])] = j
				items = items[:last]
				delete(index, k)
			}
			continue
		}
		if ok {
			items[j] = obj
			continue
		}
		index[k] = len(items)
		items = append(items, obj)
	}
	return items
}

// distinctKeys reports whether no two of objs have the same key. It
// compares hashes of the keys, so it may report false for distinct keys
// (a collision: initialState then resolves them the long way), never true
// for a repeated key.
func distinctKeys[T keys.Object](objs []T) bool {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{}, len(objs))
	for _, obj := range objs {
		h := maphash.Comparable(seed, keys.Of(obj))
		if _, dup := seen[h]; dup {
			return false
		}
		seen[h] = struct{}{}
	}
	return true
}

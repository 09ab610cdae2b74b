package reflector

import (
	"errors"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/watch"
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

package cache

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

// watchListUnsupported is the optional method by which a client says it
// cannot stream the initial state (the name client-go uses).
type watchListUnsupported interface {
	IsWatchListSemanticsUnSupported() bool
}

// watchListWanted reports whether a reflector with opts over lw should try
// watch-list streaming; see ReflectorOptions.DisableWatchList.
func watchListWanted(opts ReflectorOptions, lw ListerWatcher) bool {
	if opts.DisableWatchList {
		return false
	}
	if v, ok := os.LookupEnv(watchListEnv); ok && strings.EqualFold(strings.TrimSpace(v), "false") {
		return false
	}
	if u, ok := lw.(watchListUnsupported); ok && u.IsWatchListSemanticsUnSupported() {
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

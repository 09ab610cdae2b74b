package cache

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// SyncResult is what a factory's WaitForCacheSyncWithContext returns, with
// client-go v0.37's fields: whether each started informer synced, and why
// waiting stopped early.
type SyncResult struct {
	// Err is nil when every informer synced. Otherwise it says why waiting
	// ended: here a *NotSyncedError naming each informer that did not sync
	// with its last list/watch error, or the factory's shutdown.
	Err error
	// Synced maps the Go type of each started informer to whether it
	// synced.
	Synced map[reflect.Type]bool
}

// AsError returns nil when every informer synced, else an error naming the
// types that did not, in sorted order, and wrapping Err.
func (r SyncResult) AsError() error {
	if r.Err == nil {
		return nil
	}
	var unsynced []string
	for typ, ok := range r.Synced {
		if !ok {
			unsynced = append(unsynced, typ.String())
		}
	}
	slices.Sort(unsynced)
	return fmt.Errorf("failed to sync all caches: %s: %w", strings.Join(unsynced, ", "), r.Err)
}

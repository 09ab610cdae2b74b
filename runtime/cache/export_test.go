package cache

import (
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// ObserveWrites attaches to t, for resource, an observer calling fn with
// "wrote" and the resourceVersion or "deleted" and the UID of each write
// recorded.
func ObserveWrites(t *WriteTracker, resource schema.GroupResource, fn func(op, key, detail string)) {
	t.attach(resource, funcObserver(fn))
}

type funcObserver func(op, key, detail string)

func (f funcObserver) wrote(k keys.Key, rv int64, _ types.UID, _ map[string]string) {
	f("wrote", k.String(), strconv.FormatInt(rv, 10))
}

func (f funcObserver) deleted(k keys.Key, uid types.UID) { f("deleted", k.String(), string(uid)) }

package deltafifo

import (
	"fmt"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	// Added means a watch reported a new object.
	Added DeltaType = iota + 1
	// Updated means a watch reported a change.
	Updated
	// Deleted means the object is gone. With FinalStateUnknown set, the
	// delete was inferred from a relist and Object is the last state known.
	Deleted
	// Replaced means the object was part of a (re)list.
	Replaced
	// Sync means a periodic resync re-delivers an unchanged object.
	Sync
)

// String returns the delta type's name.
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	return fmt.Sprintf("DeltaType(%d)", uint8(t))
}

// Delta is one change to one object. Object comes first so that the small
// fields share one word: a Delta of a pointer type is 16 bytes, not 24, which
// matters for a queue holding a whole list.
type Delta[T keys.Object] struct {
	Object T
	Type   DeltaType
	// FinalStateUnknown marks a Deleted delta inferred from a relist: the
	// delete itself was missed and Object is the last known state.
	FinalStateUnknown bool
	// LeftScope marks a Deleted delta (always with FinalStateUnknown) for
	// an object that left the informer's scope (its shard ranges changed,
	// see Queue.ReplaceInScope): it may well still exist on the server.
	LeftScope bool
}

// Key returns the store key of the delta's object.
func (d Delta[T]) Key() string { return keys.Of(d.Object).String() }

package cache

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// errUnionReadOnly is returned by the writing methods of a union indexer.
var errUnionReadOnly = errors.New("a union of informers' indexers is read-only")

// NewUnionIndexer returns a read-only Indexer over the caches of several
// informers of one type, typically ones with disjoint selectors (see
// SelectableInformer), for listers (listers.New takes it) and readers.
//
// Each key appears once: where more than one member holds a key, the
// object with the highest resourceVersion (compared as numbers; the first
// member's when they do not parse) is returned. For an object that moves
// from one member's selection to another's, that means: once both members
// have received the change (the old one its removal, the new one its
// addition) the object is returned once, from the new member; before, it
// is returned once, from whichever holds it (the old state from the old
// member, or the new state as soon as the new member has it), and not at
// all only in the interval in which the old member has applied the
// removal and the new member not yet the addition: the two informers
// watch independently, so no reader of their caches can close that
// interval. Members whose selections overlap make the same rule apply to
// the objects in both.
//
// A union lists members one after another, each under its own lock: a
// List is not one snapshot across members. Index functions are the
// members' own: ByIndex and friends work for an index every member has.
// Add, Update, Delete, Replace, Bookmark and AddIndexers fail (or do
// nothing) without touching any member; add index functions to the
// members. LastStoreSyncResourceVersion is "" (the members' versions are
// not comparable as one). WaitForWritesTo and WaitForWrites (WriteWaiter)
// wait on every member that is a WriteWaiter, one after another, so a
// lister over a union reads the program's own writes as listers over its
// members would.
func NewUnionIndexer[T Object](members ...Indexer[T]) Indexer[T] {
	return unionIndexer[T]{members: slices.Clone(members)}
}

type unionIndexer[T Object] struct{ members []Indexer[T] }

// newer reports whether a's resourceVersion is higher than b's.
func newer[T Object](a, b T) bool {
	x, err1 := strconv.ParseUint(a.GetResourceVersion(), 10, 64)
	y, err2 := strconv.ParseUint(b.GetResourceVersion(), 10, 64)
	return err1 == nil && err2 == nil && x > y
}

// merge keeps one object per key from lists, in the order of first
// appearance.
func merge[T Object](lists ...[]T) []T {
	if len(lists) == 1 {
		return lists[0]
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]T, 0, n)
	at := make(map[keys.Key]int, n)
	for _, l := range lists {
		for _, obj := range l {
			k := keys.Of(obj)
			if i, ok := at[k]; ok {
				if newer(obj, out[i]) {
					out[i] = obj
				}
				continue
			}
			at[k] = len(out)
			out = append(out, obj)
		}
	}
	return out
}

func (u unionIndexer[T]) Add(T) error                          { return errUnionReadOnly }
func (u unionIndexer[T]) Update(T) error                       { return errUnionReadOnly }
func (u unionIndexer[T]) Delete(T) error                       { return errUnionReadOnly }
func (u unionIndexer[T]) Replace([]T, string) error            { return errUnionReadOnly }
func (u unionIndexer[T]) AddIndexers(Indexers[T]) error        { return errUnionReadOnly }
func (u unionIndexer[T]) Bookmark(string)                      {}
func (u unionIndexer[T]) LastStoreSyncResourceVersion() string { return "" }

func (u unionIndexer[T]) Get(obj T) (T, bool, error) {
	return u.GetByKey(keys.Of(obj).String())
}

func (u unionIndexer[T]) GetByKey(key string) (T, bool, error) {
	var best T
	found := false
	for _, m := range u.members {
		obj, ok, err := m.GetByKey(key)
		if err != nil {
			return best, false, err
		}
		if ok && (!found || newer(obj, best)) {
			best, found = obj, true
		}
	}
	return best, found, nil
}

func (u unionIndexer[T]) List() []T {
	lists := make([][]T, len(u.members))
	for i, m := range u.members {
		lists[i] = m.List()
	}
	return merge(lists...)
}

func (u unionIndexer[T]) ListKeys() []string {
	seen := map[string]struct{}{}
	var out []string
	for _, m := range u.members {
		for _, k := range m.ListKeys() {
			if _, ok := seen[k]; !ok {
				seen[k] = struct{}{}
				out = append(out, k)
			}
		}
	}
	return out
}

func (u unionIndexer[T]) Len() int { return len(u.ListKeys()) }

func (u unionIndexer[T]) Index(indexName string, obj T) ([]T, error) {
	lists := make([][]T, len(u.members))
	for i, m := range u.members {
		l, err := m.Index(indexName, obj)
		if err != nil {
			return nil, err
		}
		lists[i] = l
	}
	return merge(lists...), nil
}

func (u unionIndexer[T]) ByIndex(indexName, indexedValue string) ([]T, error) {
	lists := make([][]T, len(u.members))
	for i, m := range u.members {
		l, err := m.ByIndex(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		lists[i] = l
	}
	return merge(lists...), nil
}

func (u unionIndexer[T]) AppendByIndex(dst []T, indexName, indexedValue string) ([]T, error) {
	l, err := u.ByIndex(indexName, indexedValue)
	if err != nil {
		return dst, err
	}
	return append(dst, l...), nil
}

func (u unionIndexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	l, err := u.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(l))
	for i, obj := range l {
		out[i] = keys.Of(obj).String()
	}
	return out, nil
}

func (u unionIndexer[T]) ListIndexFuncValues(indexName string) []string {
	var out []string
	for _, m := range u.members {
		out = append(out, m.ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GetIndexers returns the index functions every member has.
func (u unionIndexer[T]) GetIndexers() Indexers[T] {
	if len(u.members) == 0 {
		return Indexers[T]{}
	}
	out := u.members[0].GetIndexers()
	for _, m := range u.members[1:] {
		other := m.GetIndexers()
		for name := range out {
			if _, ok := other[name]; !ok {
				delete(out, name)
			}
		}
	}
	return out
}

// WaitForWritesTo implements WriteWaiter through every member that is one.
func (u unionIndexer[T]) WaitForWritesTo(ctx context.Context, key string) error {
	for _, m := range u.members {
		if w, ok := m.(WriteWaiter); ok {
			if err := w.WaitForWritesTo(ctx, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// WaitForWrites implements WriteWaiter through every member that is one.
func (u unionIndexer[T]) WaitForWrites(ctx context.Context) error {
	for _, m := range u.members {
		if w, ok := m.(WriteWaiter); ok {
			if err := w.WaitForWrites(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

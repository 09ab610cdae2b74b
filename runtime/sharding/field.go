package sharding

import "fmt"

// Field names the object field whose hash places an object in the hash
// space. The values are the CEL field paths the apiserver accepts as the
// first argument of shardRange.
type Field string

const (
	// FieldNamespace hashes metadata.namespace: every object of a namespace
	// lands on the same replica, so a controller and the objects it owns in
	// that namespace are handled together. Cluster-scoped objects all hash
	// the empty string and so land on one replica. FNV-1a barely mixes a
	// string's last bytes into the top of the hash, so namespaces that
	// differ only in a short suffix (tenant-1 ... tenant-9) land together.
	FieldNamespace Field = "object.metadata.namespace"
	// FieldUID hashes metadata.uid: objects spread evenly regardless of
	// how many namespaces there are, but related objects may land on
	// different replicas.
	FieldUID Field = "object.metadata.uid"
)

// Validate returns an error naming f unless f is FieldNamespace or FieldUID.
func (f Field) Validate() error {
	switch f {
	case FieldNamespace, FieldUID:
		return nil
	}
	return fmt.Errorf("sharding: unsupported field %q; want %q or %q", string(f), FieldNamespace, FieldUID)
}

// Value returns the value of f for an object with the given namespace and
// uid: the string Hash is applied to. It returns "" for an unsupported
// field; callers validate f first.
func (f Field) Value(namespace, uid string) string {
	switch f {
	case FieldNamespace:
		return namespace
	case FieldUID:
		return uid
	}
	return ""
}

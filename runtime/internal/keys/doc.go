// Package keys holds what every part of the runtime agrees on about
// identifying an object: the Object constraint of every typed store, queue
// and transform, the comparable Key that stands for a "namespace/name" store
// key without building the string, and the one parser of store keys.
//
// It owns no state and takes no locks: every function is pure, and a Key is
// a value.
package keys

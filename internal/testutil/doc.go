// Package testutil is test support shared by the project's tests: a
// deadline-bounded poll (Eventually), object builders (Pod, ConfigMap) and a
// generic recorder of ResourceEventHandler calls that reports the calls
// contradicting the stream seen so far (Recorder), RunController, which
// runs a controller over its informers for the length of a test,
// CheckDefaulted for the Options defaults tests, and the update workload
// the informer benchmarks share (PodGenerations, TimeUpdates). Helpers that
// need runtime/cache are in the informertest subpackage.
//
// It is not an API: only the project's own _test.go files import it. It
// imports no client-go, and of the project's packages only runtime/sharding
// (which imports none), so that every other package's internal tests can use
// it without an import cycle.
package testutil

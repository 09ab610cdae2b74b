package e2e

import (
	"testing"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// watched is one kind's objects carrying a test label: the admin's ops on
// them and an informer scoped to the label, not yet running.
type watched[T cache.Object] struct {
	label string
	o     ops[T] // the admin's ops against the main apiserver
	inf   cache.SharedIndexInformer[T]
	start func() // runs inf until the test ends
}

// watchedFoos is the Foos of a fresh test label, watched by the Foo
// informer of a generated factory scoped to that label.
func watchedFoos(t testing.TB, c clients) watched[*foo] {
	label := testLabel(t)
	f := newSamplesFactory(c, withLabel(label))
	return watched[*foo]{label: label, o: fooOps(c, label), inf: fooInformer(f), start: func() { runFactory(t, f) }}
}

// watchedConfigMaps is the ConfigMaps of a fresh test label, watched by
// the ConfigMap informer of a generated factory scoped to that label.
func watchedConfigMaps(t testing.TB, c clients) watched[*configMap] {
	label := testLabel(t)
	f := newKubeFactory(c, withLabel(label))
	return watched[*configMap]{label: label, o: configMapOps(c, label), inf: configMapInformer(f), start: func() { runFactory(t, f) }}
}

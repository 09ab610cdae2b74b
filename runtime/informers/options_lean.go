package informers

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/lean"
)

// WithLean makes every informer of the factory cache lean objects: the parts
// o selects (see package lean for what each saves, costs and breaks) run on
// every object after the WithTransform transform, if any, whatever the order
// of the options. For one informer instead, install lean.Transform with
// SharedIndexInformer.SetTransform, combined with your own by lean.Chain.
func WithLean(o lean.Options) Option {
	return func(f *Factory) {
		if o == (lean.Options{}) || (o.Interner != nil && o == (lean.Options{Interner: o.Interner})) {
			f.lean = nil
			return
		}
		f.lean = lean.ObjectTransform(o)
	}
}

// factoryTransform is the transform installed on each new informer: the
// user's transform, then the lean one; nil when there is neither.
func (f *Factory) factoryTransform() func(runtime.Object) (runtime.Object, error) {
	user, slim := f.transform, f.lean
	switch {
	case slim == nil:
		return user
	case user == nil:
		return slim
	}
	return func(obj runtime.Object) (runtime.Object, error) {
		out, err := user(obj)
		if err != nil {
			return nil, err
		}
		return slim(out)
	}
}

// Transform returns the transform the factory installs on each informer it
// creates (WithTransform, then WithLean), or nil. Factories built alongside
// this one (such as metadata factories) use it to transform alike.
func (f *Factory) Transform() func(runtime.Object) (runtime.Object, error) {
	return f.factoryTransform()
}

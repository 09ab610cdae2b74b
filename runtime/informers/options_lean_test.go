package informers_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

// TestFactoryWithLeanRunsAfterWithTransformInEitherOrder checks that the
// user's transform still sees managedFields (it runs first) and that the
// stored object is lean, whichever option comes first.
func TestFactoryWithLeanRunsAfterWithTransformInEitherOrder(t *testing.T) {
	withLean := informers.WithLean(lean.Options{StripManagedFields: true, StripLastApplied: true, Intern: true})
	for _, tc := range []struct {
		name      string
		leanFirst bool
	}{{"WithLean first", true}, {"WithTransform first", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPod("a", "p1")
			p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
			p.Annotations = map[string]string{lean.LastAppliedAnnotation: "{}", "keep": "me"}
			pods := newPodSource(p)
			sawManagedFields := make(chan bool, 1)
			userTransform := informers.WithTransform(func(o runtime.Object) (runtime.Object, error) {
				select {
				case sawManagedFields <- len(o.(metav1.Object).GetManagedFields()) == 1:
				default:
				}
				o.(metav1.Object).SetLabels(map[string]string{"seen": "yes"})
				return o, nil
			})
			opts := []informers.Option{userTransform, withLean}
			if tc.leanFirst {
				opts = []informers.Option{withLean, userTransform}
			}
			f := informers.NewFactory(0, opts...)
			ctx := factoryContext(t, f)
			inf := informers.InformerFor(f, true, pods.newInformer)
			f.Start(ctx)
			waitFactory(t, f)
			if !<-sawManagedFields {
				t.Fatal("the user's transform ran after the lean one: it saw no managedFields")
			}
			got, ok, _ := inf.GetStore().GetByKey("a/p1")
			if !ok || got.ManagedFields != nil || got.Labels["seen"] != "yes" || len(got.Annotations) != 1 || got.Annotations["keep"] != "me" {
				t.Fatalf("stored pod = %+v (ok=%v), want both transforms applied", got.ObjectMeta, ok)
			}
		})
	}
}

func TestFactoryWithLeanOfNothingInstallsNoTransform(t *testing.T) {
	p := newPod("a", "p1")
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	pods := newPodSource(p)
	f := informers.NewFactory(0, informers.WithLean(lean.Options{StripManagedFields: true}), informers.WithLean(lean.Options{}))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)
	f.Start(ctx)
	waitFactory(t, f)
	if got, _, _ := inf.GetStore().GetByKey("a/p1"); len(got.ManagedFields) != 1 {
		t.Fatal("a later WithLean(Options{}) did not turn the lean mode off")
	}
}

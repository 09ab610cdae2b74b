package fake

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// List is the list object a Server's ListerWatcher returns from List: the
// matching objects of one page, sorted by key, with the list's
// resourceVersion and continue token in ListMeta. Items are deep copies the
// caller owns.
type List[T cache.Object] struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []T
}

// DeepCopyObject returns a deep copy of the list and its items.
func (l *List[T]) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &List[T]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]T, len(l.Items))
		for i, item := range l.Items {
			out.Items[i] = deepCopy(item)
		}
	}
	return out
}

var _ runtime.Object = (*List[*metav1.PartialObjectMetadata])(nil)

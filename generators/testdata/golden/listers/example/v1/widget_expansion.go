package v1

import (
	"k8s.io/apimachinery/pkg/labels"

	examplev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1"
)

// WidgetListerExpansion is written by hand: informer-gen must not declare it
// in expansion_generated.go.
type WidgetListerExpansion interface {
	// ListLarge lists the Widgets whose size exceeds min.
	ListLarge(min int) ([]*examplev1.Widget, error)
}

// ListLarge lists the Widgets whose size exceeds min.
func (s *widgetLister) ListLarge(min int) ([]*examplev1.Widget, error) {
	all, err := s.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*examplev1.Widget
	for _, w := range all {
		if w.Spec.Size > min {
			out = append(out, w)
		}
	}
	return out, nil
}

// Package selection finds the controllers whose label selector matches an
// object's labels: what the hand-written lister expansions of kube/listers
// (GetPodReplicaSets, GetPodControllers, ...) share.
package selection

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Rule says how an empty selector ({}: no requirements) is read.
type Rule int

const (
	// EmptyMatchesNothing makes an empty selector select nothing, as the
	// workload controllers read one that slipped past validation.
	EmptyMatchesNothing Rule = iota
	// EmptyMatchesEverything makes an empty selector select every object,
	// as label selectors mean in general (Jobs, policy/v1 budgets).
	EmptyMatchesEverything
)

// Selecting returns, in order, the candidates whose selector (from
// selectorOf) matches set under rule. A candidate whose selector does not
// parse, and one whose selector is nil, selects nothing.
func Selecting[T any](candidates []T, set labels.Set, rule Rule, selectorOf func(T) (labels.Selector, error)) []T {
	var out []T
	for _, c := range candidates {
		sel, err := selectorOf(c)
		if err != nil {
			continue
		}
		if sel.Empty() && rule == EmptyMatchesNothing {
			continue
		}
		if sel.Matches(set) {
			out = append(out, c)
		}
	}
	return out
}

// LabelSelector parses a workload's spec.selector; nil selects nothing.
func LabelSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(s)
}

// Labeled is what the lookups need of the object they select for.
type Labeled interface {
	// GetNamespace returns the object's namespace.
	GetNamespace() string
	// GetName returns the object's name.
	GetName() string
	// GetLabels returns the object's labels.
	GetLabels() map[string]string
}

// NoLabels is the error for an object without labels, which no selector
// of a controller may select.
func NoLabels(kind string, obj Labeled, what string) error {
	return fmt.Errorf("%s %s/%s has no labels, so no %s selects it", kind, obj.GetNamespace(), obj.GetName(), what)
}

// NoneFound is the error for an object no candidate selects.
func NoneFound(kind string, obj Labeled, what string) error {
	return fmt.Errorf("no %s in namespace %s selects %s %s (labels %v)", what, obj.GetNamespace(), kind, obj.GetName(), obj.GetLabels())
}

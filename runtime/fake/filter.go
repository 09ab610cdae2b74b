package fake

import (
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// filter selects the objects a list or watch sees: the ListerWatcher's
// namespace and the request's label and field selectors.
type filter struct {
	namespace string
	labels    labels.Selector
	fields    fields.Selector
}

// supportedField reports whether every resource supports the field
// selector key field.
func supportedField(field string) bool {
	return field == "metadata.name" || field == "metadata.namespace"
}

// newFilter parses the selectors of opts; a malformed selector or an
// unsupported field is a 400 BadRequest, as from a real server.
func newFilter(namespace string, opts metav1.ListOptions) (filter, error) {
	f := filter{namespace: namespace, labels: labels.Everything(), fields: fields.Everything()}
	if opts.LabelSelector != "" {
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
		f.labels = sel
	}
	if opts.FieldSelector != "" {
		sel, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector %q: %v", opts.FieldSelector, err))
		}
		for _, r := range sel.Requirements() {
			if !supportedField(r.Field) {
				return f, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
			}
		}
		f.fields = sel
	}
	return f, nil
}

// selects reports whether the filter has a label or field selector.
func (f filter) selects() bool { return !f.labels.Empty() || !f.fields.Empty() }

// matches reports whether obj is visible through the filter.
func (f filter) matches(obj metav1.Object) bool {
	if obj == nil {
		return false
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return false
	}
	if f.namespace != "" && obj.GetNamespace() != f.namespace {
		return false
	}
	if !f.labels.Empty() && !f.labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if !f.fields.Empty() && !f.fields.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}) {
		return false
	}
	return true
}

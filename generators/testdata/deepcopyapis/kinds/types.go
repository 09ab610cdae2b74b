package kinds

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/generators/testdata/deepcopyapis/other"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Thing is a top-level object.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ThingList is a list of Things.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// ThingSpec has a member of every shape.
type ThingSpec struct {
	Names        Strings                        `json:"names"`
	Tags         map[string]string              `json:"tags"`
	Groups       map[string][]string            `json:"groups"`
	Nested       map[string]Strings             `json:"nested"`
	Ptr          *int32                         `json:"ptr"`
	PtrPtr       **string                       `json:"ptrPtr"`
	SlicePtr     []*Inner                       `json:"slicePtr"`
	MapPtr       map[string]*Inner              `json:"mapPtr"`
	Inner        Inner                          `json:"inner"`
	InnerPtr     *Inner                         `json:"innerPtr"`
	Arr          [2]int                         `json:"arr"`
	Obj          runtime.Object                 `json:"obj"`
	Objs         []runtime.Object               `json:"objs"`
	ObjMap       map[string]runtime.Object      `json:"objMap"`
	Raw          runtime.RawExtension           `json:"raw"`
	Plain        other.Plain                    `json:"plain"`
	PlainPtr     *other.Plain                   `json:"plainPtr"`
	PtrInto      other.WithPtrInto              `json:"ptrInto"`
	PtrIntoPtr   *other.WithPtrInto             `json:"ptrIntoPtr"`
	ValueCopy    other.WithValueCopy            `json:"valueCopy"`
	ValueCopies  []other.WithValueCopy          `json:"valueCopies"`
	ValueCopyMap map[string]other.WithValueCopy `json:"valueCopyMap"`
	Labels       other.Labels                   `json:"labels"`
	Copier       other.Copier                   `json:"copier"`
	Prefix       other.Prefix                   `json:"prefix"`
	Spec         other.Spec                     `json:"spec"`
	Values       map[string]other.Value         `json:"values"`
	Time         metav1.Time                    `json:"time"`
	TimePtr      *metav1.Time                   `json:"timePtr"`
	Bytes        []byte                         `json:"bytes"`
	Matrix       [][]string                     `json:"matrix"`
	Resources    Resources                      `json:"resources"`
	Hand         Handwritten                    `json:"hand"`
	HandCopy     HandCopy                       `json:"handCopy"`
	Quantity     Quantityish                    `json:"quantity"`
	Phase        Phase                          `json:"phase"`
}

// Strings is a named slice.
type Strings []string

// Resources is a named map of structs.
type Resources map[string]Inner

// Inner is a small struct with a pointer.
type Inner struct {
	A string `json:"a"`
	B *bool  `json:"b"`
}

// Phase is a string type: copied by assignment, no functions of its own.
type Phase string

// Quantityish is a string type with DeepCopy written by hand, so it gets
// DeepCopyInto.
type Quantityish string

// DeepCopy returns q.
func (q Quantityish) DeepCopy() Quantityish { return q }

// Handwritten has DeepCopyInto written by hand: only DeepCopy is generated.
type Handwritten struct {
	S []string `json:"s"`
}

// DeepCopyInto copies in into out.
func (in *Handwritten) DeepCopyInto(out *Handwritten) {
	*out = *in
	if in.S != nil {
		out.S = make([]string, len(in.S))
		copy(out.S, in.S)
	}
}

// HandCopy has DeepCopy written by hand: DeepCopyInto calls it.
type HandCopy struct {
	S []string `json:"s"`
}

// DeepCopy returns a copy of in.
func (in *HandCopy) DeepCopy() *HandCopy {
	if in == nil {
		return nil
	}
	out := &HandCopy{}
	if in.S != nil {
		out.S = make([]string, len(in.S))
		copy(out.S, in.S)
	}
	return out
}

// +k8s:deepcopy-gen:interfaces=github.com/typedinformer/typedinformer/generators/testdata/deepcopyapis/other.Copier
// +k8s:deepcopy-gen:nonpointer-interfaces=true

// ValueCopier implements other.Copier on its value.
type ValueCopier struct {
	A string `json:"a"`
}

// +k8s:deepcopy-gen=false

// OptedOut gets no functions: it could not be copied.
type OptedOut struct {
	F func() `json:"-"`
}

// unexported gets no functions.
type unexported struct {
	A []string
}

var _ = unexported{}

// Pair is generic: deepcopy-gen copies it only when tagged, which it
// refuses.
type Pair[T any] struct {
	A, B T
}

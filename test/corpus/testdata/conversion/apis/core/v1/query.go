package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Names is a named []string: laid out as url.Values' values.
type Names []string

// +k8s:conversion-gen:explicit-from=net/url.Values

// WidgetQuery has no peer type: it is only read from query parameters,
// one member of each kind conversion-gen sets from them or leaves alone.
type WidgetQuery struct {
	metav1.TypeMeta `json:",inline"`

	Name     string       `json:"name"`
	Watch    bool         `json:"watch,omitempty"`
	Limit    int64        `json:"limit"`
	Count    int          `json:"count"`
	Replicas int32        `json:"replicas"`
	Ratio    float64      `json:"ratio"`
	Tiny     int8         `json:"tiny"`
	Rune     rune         `json:"rune"`
	Exact    *bool        `json:"exact"`
	MaxAge   *int64       `json:"maxAge"`
	Label    *string      `json:"label"`
	Names    []string     `json:"names"`
	Aliases  Names        `json:"aliases"`
	Counts   []int32      `json:"counts"`
	Since    metav1.Time  `json:"since"`
	Until    *metav1.Time `json:"until"`
	Phase    Phase        `json:"phase"`
	Selector Labels       `json:"selector"`
	Port     Port         `json:"port"`
	Any      interface{}  `json:"any"`
	Done     chan int     `json:"done"`
	Dash     string       `json:"-"`
	NoTag    string
	// +k8s:conversion-gen=false
	Skipped string `json:"skipped"`
}

// Selection is opted out of the conversions with its peer, which
// conversion-gen writes all the same (unregistered) for a type it
// converts from url.Values.
// +k8s:conversion-gen=false
// +k8s:conversion-gen:explicit-from=net/url.Values
type Selection struct {
	Name string `json:"name"`
}

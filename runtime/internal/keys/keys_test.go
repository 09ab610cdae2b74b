package keys

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKeyStringParseRoundTrip(t *testing.T) {
	cases := []struct {
		ns, name, want string
	}{
		{"default", "a", "default/a"},
		{"", "node-1", "node-1"},
	}
	for _, c := range cases {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.ns, Name: c.name}}
		k := Of(pod)
		if got := k.String(); got != c.want {
			t.Errorf("Of(%s/%s).String() = %q, want %q", c.ns, c.name, got, c.want)
		}
		if got := StringOf(pod); got != c.want {
			t.Errorf("StringOf(%s/%s) = %q, want %q", c.ns, c.name, got, c.want)
		}
		back, err := Parse(c.want)
		if err != nil || back != k {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.want, back, err, k)
		}
	}
}

func TestParseRejectsMalformedKeysNamingThem(t *testing.T) {
	for _, bad := range []string{"a/b/c", "ns/"} {
		_, err := Parse(bad)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("Parse(%q) error %v, want one naming the key", bad, err)
		}
	}
}

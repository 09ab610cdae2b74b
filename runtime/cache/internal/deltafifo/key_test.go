package deltafifo

import (
	"strings"
	"testing"
)

func TestKeyStringAndParseKeyRoundTrip(t *testing.T) {
	for _, k := range []Key{{Namespace: "ns", Name: "a"}, {Name: "cluster-scoped"}} {
		got, err := ParseKey(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKey(%q) = %+v, %v; want %+v", k.String(), got, err, k)
		}
	}
	if got := (Key{Namespace: "ns", Name: "a"}).String(); got != "ns/a" {
		t.Errorf("String = %q, want ns/a", got)
	}
}

func TestParseKeyRejectsMalformedKeysNamingThem(t *testing.T) {
	for _, bad := range []string{"a/b/c", "ns/"} {
		_, err := ParseKey(bad)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseKey(%q) error %v, want one naming the key", bad, err)
		}
	}
}

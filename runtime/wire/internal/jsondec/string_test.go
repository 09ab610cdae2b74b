package jsondec

import (
	"testing"

	kjson "sigs.k8s.io/json"
)

// stringAsSigsJSON is what the API machinery's decoding of v into a string
// gives, and whether it accepted v.
func stringAsSigsJSON(v []byte) (string, bool) {
	var s string
	if err := kjson.UnmarshalCaseSensitivePreserveInts(v, &s); err != nil {
		return "", false
	}
	return s, true
}

func TestStringAsSigsJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"plain", `"ADDED"`, true},
		{"empty", `""`, true},
		{"escapes", `"a\"b\\c\/d\b\f\n\r\t"`, true},
		{"unicode escape", `"caf\u00e9 \u2028"`, true},
		{"surrogate pair", `"\ud83d\ude00"`, true},
		{"lone surrogate", `"\ud83d x"`, true},
		{"mismatched surrogates", `"\ud83d\u0041"`, true},
		{"raw utf-8", `"héllo wörld"`, true},
		{"invalid utf-8", "\"a\xffb\xc3\"", true},
		{"long", `"` + string(make([]byte, 0, 1)) + "v1234567890123456789012345678901234567890123456789012345678901234567890" + `"`, true},
		{"null", `null`, false},
		{"number", `12`, false},
		{"object", `{"a":"b"}`, false},
		{"array", `["a"]`, false},
		{"bool", `true`, false},
		{"trailing space", "\"a\" \n", true},
		{"leading space", ` "a"`, false},
		{"trailing bytes", `"a" x`, false},
		{"two strings", `"a""b"`, false},
		{"unterminated", `"abc`, false},
		{"control character", "\"a\x01b\"", false},
		{"empty input", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, strs := range []*Strings{nil, NewStrings(4)} {
				got, ok := String([]byte(tc.in), strs)
				if ok != tc.ok {
					t.Fatalf("String(%q) ok = %v, want %v", tc.in, ok, tc.ok)
				}
				if !ok {
					continue
				}
				want, wok := stringAsSigsJSON([]byte(tc.in))
				if !wok || got != want {
					t.Fatalf("String(%q) = %q, sigs.k8s.io/json gives %q (accepted %v)", tc.in, got, want, wok)
				}
			}
		})
	}
}

func TestStringShares(t *testing.T) {
	strs := NewStrings(4)
	in := []byte(`"MODIFIED"`)
	a, _ := String(in, strs)
	in[1] = 'X' // the result must not alias the input
	b, _ := String([]byte(`"MODIFIED"`), strs)
	if a != "MODIFIED" || b != "MODIFIED" {
		t.Fatalf("got %q and %q", a, b)
	}
	again := []byte(`"MODIFIED"`)
	if allocs := testing.AllocsPerRun(100, func() { String(again, strs) }); allocs != 0 {
		t.Fatalf("a held string allocated %v times per call", allocs)
	}
}

// FuzzString: whatever String accepts, the API machinery's decoding gives
// the same string; a string literal it refuses (white space before it
// aside, which callers never pass), the API machinery refuses too.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `"\ud800"`, `null`, `"a\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, ok := String(v, NewStrings(2))
		want, wok := stringAsSigsJSON(v)
		if ok && (!wok || got != want) {
			t.Fatalf("String(%q) = %q, sigs.k8s.io/json gives %q (accepted %v)", v, got, want, wok)
		}
		if !ok && wok && len(v) > 0 && v[0] == '"' {
			t.Fatalf("String(%q) refused a string sigs.k8s.io/json decodes to %q", v, want)
		}
	})
}

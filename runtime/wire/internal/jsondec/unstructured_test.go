package jsondec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
)

// bothUnstructured decodes data as apimachinery's UnstructuredJSONScheme
// does into an *unstructured.Unstructured and with an
// UnstructuredDecoder (fresh, and dec, which shares strings with what it
// decoded before), and requires the same outcome: both failing, or the
// same content with the same Go types. It does the same for the content
// alone as a list item's (sigs.k8s.io/json into a map, no kind required)
// against DecodeValue. It returns apimachinery's error.
func bothUnstructured(t *testing.T, dec *UnstructuredDecoder, data []byte) error {
	t.Helper()
	wantObj, _, wantErr := unstructured.UnstructuredJSONScheme.Decode(data, nil, &unstructured.Unstructured{})
	for _, d := range []*UnstructuredDecoder{NewUnstructuredDecoder(nil), dec} {
		got, err := d.Decode(data)
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("%s\nUnstructuredJSONScheme: %v\njsondec: %v", clip(data), wantErr, err)
		}
		if wantErr != nil {
			if runtime.IsMissingKind(wantErr) != runtime.IsMissingKind(err) {
				t.Fatalf("%s\nUnstructuredJSONScheme: %v\njsondec: %v (missing kind differs)", clip(data), wantErr, err)
			}
			continue
		}
		if !reflect.DeepEqual(wantObj, got) {
			t.Fatalf("%s\ndecoded differently:\nUnstructuredJSONScheme: %#v\njsondec:                %#v", clip(data), wantObj.(*unstructured.Unstructured).Object, got.Object)
		}
	}
	// A list item: the value at the start of data, decoded into a map.
	n, err := Skip(data)
	if err != nil || n != len(data) {
		return wantErr
	}
	want := map[string]any{}
	wantErr2 := kjson.UnmarshalCaseSensitivePreserveInts(data, &want)
	for _, d := range []*UnstructuredDecoder{NewUnstructuredDecoder(nil), dec} {
		got, used, err := d.DecodeValue(data)
		if (wantErr2 == nil) != (err == nil) {
			t.Fatalf("%s\nsigs.k8s.io/json into a map: %v\nDecodeValue: %v", clip(data), wantErr2, err)
		}
		if err != nil {
			continue
		}
		if used != len(strings.TrimRight(string(data), " \t\r\n")) {
			t.Fatalf("%s\nDecodeValue took %d bytes of %d", clip(data), used, len(data))
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s\nDecodeValue decoded differently:\nsigs.k8s.io/json: %#v\njsondec:          %#v", clip(data), want, got)
		}
	}
	return wantErr
}

// nested returns depth arrays (or objects) nested inside an object with a
// kind: depth+1 levels in all.
func nested(depth int, object bool) string {
	open, end := "[", "]"
	if object {
		open, end = `{"a":`, "}"
	}
	return `{"kind":"Deep","x":` + strings.Repeat(open, depth) + "1" + strings.Repeat(end, depth) + "}"
}

// TestUnstructuredAsApimachinery decodes real objects and documents that
// exercise each rule with apimachinery's UnstructuredJSONScheme and with
// an UnstructuredDecoder, and requires the same result, Go types
// included, or both failing (fail says which do).
func TestUnstructuredAsApimachinery(t *testing.T) {
	deepCR := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","labels":{"a":"b"}},` +
		`"spec":{"a":{"b":{"c":{"d":{"e":[[[{"f":[1,2.5,"3",null,true,{"g":{}}]}]]]}}}},"list":[],"obj":{},"n":-0,"e":1e3}}`
	cases := []struct {
		name string
		doc  string
		fail bool
	}{
		{name: "Pod", doc: mustJSON(t, realPod(1))},
		{name: "Pod 2", doc: mustJSON(t, realPod(2))},
		{name: "Deployment", doc: mustJSON(t, realDeployment())},
		{name: "custom resource", doc: mustJSON(t, realWidget())},
		{name: "deeply nested custom resource", doc: deepCR},
		{name: "only kind", doc: `{"kind":"A"}`},
		{name: "white space around", doc: " \t\r\n{ \"kind\" : \"A\" , \"a\" : [ 1 , { } ] }\n\t "},

		// Numbers: int64 without a '.', else float64.
		{name: "integers", doc: `{"kind":"N","a":0,"b":-0,"c":1,"d":-1,"e":255,"f":256,"g":123456789012345678,"h":-123456789012345678}`},
		{name: "int64 limits", doc: `{"kind":"N","max":9223372036854775807,"min":-9223372036854775808}`},
		{name: "beyond int64", doc: `{"kind":"N","a":9223372036854775808,"b":-9223372036854775809,"c":123456789012345678901234567890}`},
		{name: "fractions", doc: `{"kind":"N","a":1.0,"b":-0.0,"c":0.1,"d":-1.5,"e":3.141592653589793238462643383279}`},
		{name: "exponents", doc: `{"kind":"N","a":1e3,"b":1E3,"c":1e+3,"d":1e-3,"e":-1e3,"f":0e0,"g":1.5e300,"h":4.9e-324,"i":1e-400,"j":1.7976931348623157e308}`},
		{name: "integer exponent beyond int64", doc: `{"kind":"N","a":1e19,"b":9e18}`},
		{name: "beyond float64", doc: `{"kind":"N","a":1e309}`, fail: true},
		{name: "beyond float64 negative", doc: `{"kind":"N","a":-1e400}`, fail: true},
		{name: "beyond float64 in an array", doc: `{"kind":"N","a":[1,1e999]}`, fail: true},
		{name: "leading zero", doc: `{"kind":"N","a":01}`, fail: true},
		{name: "bare minus", doc: `{"kind":"N","a":-}`, fail: true},
		{name: "trailing point", doc: `{"kind":"N","a":1.}`, fail: true},
		{name: "leading point", doc: `{"kind":"N","a":.5}`, fail: true},
		{name: "plus sign", doc: `{"kind":"N","a":+1}`, fail: true},
		{name: "empty exponent", doc: `{"kind":"N","a":1e}`, fail: true},
		{name: "NaN", doc: `{"kind":"N","a":NaN}`, fail: true},
		{name: "Infinity", doc: `{"kind":"N","a":-Infinity}`, fail: true},
		{name: "hex", doc: `{"kind":"N","a":0x10}`, fail: true},

		// Strings.
		{name: "escapes", doc: `{"kind":"S","a":"\"\\\/\b\f\n\r\t","b":"\u00e9\u2028\u0000","c":"caf\u00C9"}`},
		{name: "surrogate pair", doc: `{"kind":"S","a":"\ud83d\ude00","b":"x\uD83D\uDE00y"}`},
		{name: "lone surrogates", doc: `{"kind":"S","a":"\ud83d","b":"\ude00","c":"\ud83dx","d":"\ud83d\u0041","e":"\ud83d\ud83d\ude00"}`},
		{name: "invalid UTF-8", doc: "{\"kind\":\"S\",\"a\":\"\xff\",\"b\":\"a\xc3\",\"c\":\"\xc0\xaf\",\"d\":\"\xed\xa0\x80\",\"e\":\"\xf4\x90\x80\x80\"}"},
		{name: "invalid UTF-8 in a key", doc: "{\"kind\":\"S\",\"k\xff\":1,\"\xfe\":2}"},
		{name: "valid UTF-8", doc: `{"kind":"S","a":"日本語","b":"𝄞","c":"ü"}`},
		{name: "DEL is allowed", doc: "{\"kind\":\"S\",\"a\":\"\x7f\"}"},
		{name: "control character", doc: "{\"kind\":\"S\",\"a\":\"\x01\"}", fail: true},
		{name: "newline in a string", doc: "{\"kind\":\"S\",\"a\":\"a\nb\"}", fail: true},
		{name: "bad escape", doc: `{"kind":"S","a":"\x"}`, fail: true},
		{name: "short \\u escape", doc: `{"kind":"S","a":"\u12"}`, fail: true},
		{name: "non-hex \\u escape", doc: `{"kind":"S","a":"\u12g4"}`, fail: true},
		{name: "long string", doc: `{"kind":"S","a":"` + strings.Repeat("x", 300) + `","b":"` + strings.Repeat("é", 100) + `"}`},
		{name: "escaped kind", doc: `{"k\u0069nd":"P\u006fd"}`},

		// Literals, nesting, shapes.
		{name: "literals", doc: `{"kind":"L","t":true,"f":false,"n":null,"a":[true,false,null]}`},
		{name: "empty containers", doc: `{"kind":"E","o":{},"a":[],"oa":[{}],"ao":{"a":[]}}`},
		{name: "bad literal", doc: `{"kind":"L","t":tru}`, fail: true},
		{name: "capital literal", doc: `{"kind":"L","t":True}`, fail: true},
		{name: "missing comma", doc: `{"kind":"L" "a":1}`, fail: true},
		{name: "trailing comma in object", doc: `{"kind":"L","a":1,}`, fail: true},
		{name: "trailing comma in array", doc: `{"kind":"L","a":[1,]}`, fail: true},
		{name: "unquoted key", doc: `{kind:"L"}`, fail: true},
		{name: "single quotes", doc: `{'kind':'L'}`, fail: true},
		{name: "missing colon", doc: `{"kind" "L"}`, fail: true},

		// Keys.
		{name: "duplicate keys, last wins", doc: `{"kind":"A","a":1,"a":"two","b":{"x":1},"b":{"y":2},"c":[1],"c":null}`},
		{name: "duplicate kind", doc: `{"kind":"A","kind":"B"}`},
		{name: "duplicate kind, last empty", doc: `{"kind":"A","kind":""}`, fail: true},
		{name: "keys are case-sensitive", doc: `{"kind":"A","Kind":"B","KIND":5,"metadata":{"Name":"x","name":"y"}}`},
		{name: "empty key", doc: `{"kind":"A","":1}`},
		{name: "nested duplicate keys", doc: `{"kind":"A","m":{"a":{"b":1},"a":{"c":2}}}`},

		// kind.
		{name: "no kind", doc: `{"apiVersion":"v1","metadata":{"name":"x"}}`, fail: true},
		{name: "empty kind", doc: `{"kind":""}`, fail: true},
		{name: "numeric kind", doc: `{"kind":5}`, fail: true},
		{name: "null kind", doc: `{"kind":null}`, fail: true},
		{name: "object kind", doc: `{"kind":{"a":"b"}}`, fail: true},
		{name: "only Kind", doc: `{"Kind":"A"}`, fail: true},
		{name: "empty object", doc: `{}`, fail: true},
		{name: "kind without apiVersion is enough", doc: `{"kind":"A","apiVersion":5}`},

		// Top level.
		{name: "null", doc: `null`, fail: true},
		{name: "array", doc: `[{"kind":"A"}]`, fail: true},
		{name: "string", doc: `"kind"`, fail: true},
		{name: "number", doc: `1`, fail: true},
		{name: "bool", doc: `true`, fail: true},
		{name: "empty", doc: ``, fail: true},
		{name: "white space only", doc: " \n", fail: true},
		{name: "byte order mark", doc: "\xef\xbb\xbf{\"kind\":\"A\"}", fail: true},
		{name: "trailing value", doc: `{"kind":"A"} {"kind":"B"}`, fail: true},
		{name: "trailing garbage", doc: `{"kind":"A"}x`, fail: true},
		{name: "trailing comma", doc: `{"kind":"A"},`, fail: true},
		{name: "trailing NUL", doc: "{\"kind\":\"A\"}\x00", fail: true},
		{name: "unclosed", doc: `{"kind":"A"`, fail: true},
		{name: "extra close", doc: `{"kind":"A"}}`, fail: true},

		// Depth: encoding/json allows 10000 levels.
		{name: "9999 arrays under the object", doc: nested(9999, false)},
		{name: "10000 arrays under the object", doc: nested(10000, false), fail: true},
		{name: "9999 objects under the object", doc: nested(9999, true)},
		{name: "10000 objects under the object", doc: nested(10000, true), fail: true},
	}
	dec := NewUnstructuredDecoder(NewStrings(64))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := bothUnstructured(t, dec, []byte(tc.doc))
			if (err != nil) != tc.fail {
				t.Fatalf("apimachinery's error: %v, want failing %v", err, tc.fail)
			}
		})
	}
}

// TestUnstructuredTypes pins the Go types of a few values, which the
// comparison with apimachinery would also accept if both changed.
func TestUnstructuredTypes(t *testing.T) {
	got, err := NewUnstructuredDecoder(nil).Decode([]byte(`{"kind":"K","i":1,"neg0":-0,"f":1.0,"e":1e3,"big":18446744073709551616,"s":"x","b":true,"n":null,"a":[],"o":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kind": "K", "i": int64(1), "neg0": int64(0), "f": float64(1), "e": float64(1000), "big": float64(1 << 64),
		"s": "x", "b": true, "n": nil, "a": []any{}, "o": map[string]any{}}
	if !reflect.DeepEqual(got.Object, want) {
		t.Fatalf("got %#v\nwant %#v", got.Object, want)
	}
}

// TestUnstructuredTruncated cuts small documents at every offset and
// decodes each prefix both ways; DecodeValue must report a value cut off
// by the end of the bytes as Truncated, so a stream reader reads more.
func TestUnstructuredTruncated(t *testing.T) {
	docs := []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"x":"\u00e9\ud83d\ude00"}},"spec":{"n":[1,-2.5e3,true,false,null,{}]}}`,
		`{"kind":"N","a":-0.5e-3,"b":12345678901234567890,"c":"\"\\"}`,
		"{\"kind\":\"S\",\"a\":\"\xff\xc3\xa9\"}",
	}
	dec := NewUnstructuredDecoder(NewStrings(64))
	for _, doc := range docs {
		for i := 0; i <= len(doc); i++ {
			prefix := []byte(doc[:i])
			bothUnstructured(t, dec, prefix)
			if i == len(doc) {
				continue
			}
			_, _, err := dec.DecodeValue(prefix)
			var se *SyntaxError
			if !asSyntax(err, &se) || !se.Truncated {
				// A number at the end of the bytes may be whole.
				if err == nil && i > 0 && isDigitEnd(prefix) {
					continue
				}
				t.Fatalf("%q: DecodeValue: %v, want a truncated syntax error", prefix, err)
			}
		}
	}
}

func asSyntax(err error, se **SyntaxError) bool {
	e, ok := err.(*SyntaxError) //nolint:errorlint // never wrapped
	*se = e
	return ok
}

func isDigitEnd(b []byte) bool { c := b[len(b)-1]; return c >= '0' && c <= '9' }

// TestUnstructuredShares decodes two objects with one Strings: the keys
// and short values they repeat are one string each, the maps are not
// shared.
func TestUnstructuredShares(t *testing.T) {
	dec := NewUnstructuredDecoder(NewStrings(64))
	doc := []byte(`{"kind":"Pod","metadata":{"namespace":"shop","labels":{"app":"web"}}}`)
	a, err := dec.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dec.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	ns := func(u *unstructured.Unstructured) string {
		return u.Object["metadata"].(map[string]any)["namespace"].(string)
	}
	if unsafeData(ns(a)) != unsafeData(ns(b)) {
		t.Error("the namespace is not shared")
	}
	a.Object["metadata"].(map[string]any)["namespace"] = "other"
	if ns(b) != "shop" {
		t.Error("the objects share a map")
	}
	for k := range a.Object {
		for k2 := range b.Object {
			if k == k2 && unsafeData(k) != unsafeData(k2) {
				t.Errorf("key %q is not shared", k)
			}
		}
	}
}

// FuzzUnstructured decodes arbitrary bytes with apimachinery's
// UnstructuredJSONScheme and with an UnstructuredDecoder and requires the
// same outcome.
func FuzzUnstructured(f *testing.F) {
	for i := range 2 {
		f.Add([]byte(mustJSON(f, realPod(i))))
	}
	f.Add([]byte(mustJSON(f, realWidget())))
	f.Add([]byte(`{"kind":"N","a":[1,-0,1.0,1e3,9223372036854775808,-9223372036854775809,1e400],"s":"\ud83d\ude00\ud83d\u00e9\xff"}`))
	f.Add([]byte(`{"kind":"A","kind":"","a":{"b":1},"a":{"c":[{}]},"Kind":"B"} `))
	f.Add([]byte(`null`))
	f.Add([]byte(fmt.Sprintf(`{"kind":"D","d":%s1%s}`, strings.Repeat("[", 50), strings.Repeat("]", 50))))
	dec := NewUnstructuredDecoder(NewStrings(32))
	f.Fuzz(func(t *testing.T, data []byte) {
		bothUnstructured(t, dec, data)
	})
}

// unsafeData is where a string's bytes are, to tell shared strings apart.
func unsafeData(s string) *byte { return unsafe.StringData(s) }

package cborscan

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSkip skips one item followed by other bytes and requires its
// length, or the error for bytes that are not a well-formed item.
func TestSkip(t *testing.T) {
	cases := []struct {
		name      string
		in        string // hex
		want      int    // length of the first item
		err       string // part of the error, "" for none
		truncated bool
	}{
		{name: "small uint", in: "17 00", want: 1},
		{name: "uint in 8 bytes", in: "1b 0000000000000001 00", want: 9},
		{name: "negative int", in: "38 63 00", want: 2},
		{name: "text", in: "63 616263 00", want: 4},
		{name: "byte string in 2-byte length", in: "59 0002 ffff 00", want: 5},
		{name: "empty array", in: "80 00", want: 1},
		{name: "nested array", in: "82 01 82 02 03 00", want: 5},
		{name: "map", in: "a2 6161 01 6162 82 02 03 00", want: 9},
		{name: "self-described tagged map", in: "d9d9f7 a1 41 6b 40 00", want: 7},
		{name: "nested tags", in: "c1 c1 01 00", want: 3},
		{name: "indefinite array", in: "9f 01 9f ff 02 ff 00", want: 6},
		{name: "indefinite map", in: "bf 61 61 01 ff 00", want: 5},
		{name: "indefinite text in chunks", in: "7f 61 61 60 ff 00", want: 5},
		{name: "float16 and simple values", in: "83 f9 3c00 f4 f6 00", want: 6},
		{name: "float64", in: "fb 3ff0000000000000 00", want: 9},
		{name: "two-byte simple value 32", in: "f8 20 00", want: 2},

		{name: "empty", in: "", err: "unexpected end", truncated: true},
		{name: "string cut", in: "63 6162", err: "unexpected end", truncated: true},
		{name: "head cut", in: "19 00", err: "unexpected end", truncated: true},
		{name: "array cut", in: "83 01 02", err: "unexpected end", truncated: true},
		{name: "indefinite array without break", in: "9f 01", err: "unexpected end", truncated: true},
		{name: "tag without content", in: "d9d9f7", err: "unexpected end", truncated: true},
		{name: "huge string length", in: "5b 7fffffffffffffff 00", err: "unexpected end", truncated: true},
		{name: "reserved additional information", in: "1c", err: "reserved additional information 28"},
		{name: "reserved in a map", in: "a1 01 fd", err: "at offset 2"},
		{name: "indefinite integer", in: "1f", err: "indefinite length on major type 0"},
		{name: "indefinite tag", in: "df 01", err: "indefinite length on major type 6"},
		{name: "break alone", in: "ff", err: "a break outside"},
		{name: "break in a definite array", in: "82 01 ff", err: "a break outside"},
		{name: "chunk of another type", in: "7f 41 61 ff", err: "a chunk of an indefinite-length string"},
		{name: "indefinite chunk", in: "5f 5f ff ff", err: "a chunk of an indefinite-length string"},
		{name: "indefinite map with a lone key", in: "bf 01 ff", err: "a key without its value"},
		{name: "two-byte simple value below 32", in: "f8 1f", err: "simple value 31 in two bytes"},
		{name: "map count overflowing", in: "bb ffffffffffffffff", err: "a map of"},
		{name: "too deep", in: strings.Repeat("81", MaxDepth+1) + "01", err: "nesting deeper than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Skip(unhex(t, tc.in))
			if tc.err == "" {
				if err != nil || n != tc.want {
					t.Fatalf("Skip = %d, %v; want %d", n, err, tc.want)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.err) || se.Truncated != tc.truncated {
				t.Fatalf("Skip = %d, %v; want a SyntaxError containing %q, truncated %v", n, err, tc.err, tc.truncated)
			}
		})
	}
}

// TestSkipDeepButAllowed nests exactly MaxDepth arrays.
func TestSkipDeepButAllowed(t *testing.T) {
	in := unhex(t, strings.Repeat("81", MaxDepth)+"01")
	if n, err := Skip(in); err != nil || n != len(in) {
		t.Fatalf("Skip = %d, %v; want %d", n, err, len(in))
	}
}

// lenient decodes any well-formed item, for the fuzz target's reference.
func lenient(t testing.TB) cbor.DecMode {
	dm, err := cbor.DecOptions{
		MaxNestedLevels:  MaxDepth + 1,
		MaxArrayElements: 2147483647,
		MaxMapPairs:      2147483647,
		IndefLength:      cbor.IndefLengthAllowed,
		TagsMd:           cbor.TagsAllowed,
		DupMapKey:        cbor.DupMapKeyQuiet,
		UTF8:             cbor.UTF8DecodeInvalid,
	}.DecMode()
	if err != nil {
		t.Fatal(err)
	}
	return dm
}

// FuzzSkip requires Skip to agree with fxamacker/cbor's well-formedness
// check on where the first item ends, and never to claim more bytes than
// it was given.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{
		"a2 6161 01 6162 82 02 03", "d9d9f7 bf 61 61 9f 01 ff ff", "7f 61 61 60 ff", "fb 3ff0000000000000",
		"d9d9f7 a4 44 6b696e64 47 506f644c697374 45 6974656d73 81 a1 48 6d65746164617461 a0 48 6d65746164617461 a0 4a 61706956657273696f6e 42 7631",
	} {
		f.Add(unhex(f, s))
	}
	dm := lenient(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := Skip(in)
		var raw cbor.RawMessage
		rest, refErr := dm.UnmarshalFirst(in, &raw)
		if err == nil && (n <= 0 || n > len(in)) {
			t.Fatalf("Skip(%x) = %d, out of range", in, n)
		}
		switch {
		case err == nil && refErr == nil:
			if n != len(in)-len(rest) {
				t.Fatalf("Skip(%x) = %d, reference %d", in, n, len(in)-len(rest))
			}
		case err == nil:
			var we *cbor.SyntaxError
			if errors.As(refErr, &we) {
				t.Fatalf("Skip(%x) = %d, reference: %v", in, n, refErr)
			}
		case refErr == nil:
			var se *SyntaxError
			if errors.As(err, &se) && se.Truncated {
				t.Fatalf("Skip(%x) truncated (%v), reference read %d bytes", in, err, len(in)-len(rest))
			}
			if !strings.Contains(err.Error(), "deeper") {
				t.Fatalf("Skip(%x): %v, reference read %d bytes", in, err, len(in)-len(rest))
			}
		}
	})
}

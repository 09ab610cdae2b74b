package output

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiffFormat(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	b := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\n"
	var buf bytes.Buffer
	if err := UnifiedDiff(&buf, "a/x", "b/x", []byte(a), []byte(b)); err != nil {
		t.Fatal(err)
	}
	want := `--- a/x
+++ b/x
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -12,3 +12,4 @@
 l
 m
 n
+o
`
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := UnifiedDiff(&buf, "a/x", "b/x", []byte(a), []byte(a)); err != nil || buf.Len() != 0 {
		t.Errorf("equal inputs produced %q, %v", buf.String(), err)
	}
}

// TestUnifiedDiffApplies checks on random inputs that applying the diff to
// a yields b.
func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	randomText := func() string {
		var lines []string
		for i := r.IntN(30); i > 0; i-- {
			lines = append(lines, strconv.Itoa(r.IntN(5)))
		}
		s := strings.Join(lines, "\n")
		if s != "" && r.IntN(4) > 0 {
			s += "\n"
		}
		return s
	}
	for i := 0; i < 2000; i++ {
		a, b := randomText(), randomText()
		var buf bytes.Buffer
		if err := UnifiedDiff(&buf, "a", "b", []byte(a), []byte(b)); err != nil {
			t.Fatal(err)
		}
		got, err := applyDiff(a, buf.String())
		if err != nil || got != b {
			t.Fatalf("case %d: applying\n%s\nto %q gave %q (%v), want %q", i, buf.String(), a, got, err, b)
		}
	}
}

// applyDiff is a minimal patch for the diffs UnifiedDiff writes.
func applyDiff(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	src := splitLines([]byte(a))
	var out []string
	pos := 0
	var last byte
	lines := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			var as, al, bs, bl int
			spec := strings.Fields(l)
			parse := func(s string) (int, int) {
				start, n, found := strings.Cut(s[1:], ",")
				st, _ := strconv.Atoi(start)
				if !found {
					return st, 1
				}
				c, _ := strconv.Atoi(n)
				return st, c
			}
			as, al = parse(spec[1])
			bs, bl = parse(spec[2])
			_, _ = bs, bl
			from := as - 1
			if al == 0 {
				from = as
			}
			out = append(out, src[pos:from]...)
			pos = from
			continue
		}
		if strings.HasPrefix(l, "\\") {
			if last == '+' {
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
			}
			continue
		}
		last = l[0]
		text := l[1:]
		switch l[0] {
		case ' ':
			if pos >= len(src) || strings.TrimSuffix(src[pos], "\n") != strings.TrimSuffix(text, "\n") {
				return "", fmt.Errorf("context mismatch at line %d", pos+1)
			}
			out = append(out, src[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, text)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

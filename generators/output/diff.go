package output

import (
	"fmt"
	"io"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// UnifiedDiff writes a unified diff turning a into b, with the given file
// labels ("a/x.go", "b/x.go", or "/dev/null" for a missing side). It writes
// nothing when a and b are equal.
func UnifiedDiff(w io.Writer, labelA, labelB string, a, b []byte) error {
	if string(a) == string(b) {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	if _, err := fmt.Fprintf(w, "--- %s\n+++ %s\n", labelA, labelB); err != nil {
		return err
	}
	// Group the edit script into hunks with diffContext lines around changes.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, run)
				break
			}
			end = run
		}
		hunk := ops[start:end]
		aStart, bStart := hunk[0].a, hunk[0].b
		var aLen, bLen int
		for _, op := range hunk {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen)); err != nil {
			return err
		}
		for _, op := range hunk {
			line := op.text
			if _, err := fmt.Fprintf(w, "%c%s\n", op.kind, strings.TrimSuffix(line, "\n")); err != nil {
				return err
			}
			if !strings.HasSuffix(line, "\n") {
				if _, err := io.WriteString(w, "\\ No newline at end of file\n"); err != nil {
					return err
				}
			}
		}
		i = end
	}
	return nil
}

// hunkRange formats a hunk's "start,len" (1-based; start is the line before
// an empty range, as diff does).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits text into lines that keep their "\n".
func splitLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(s), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of an edit script: ' ' kept, '-' deleted from a, '+'
// added from b; a and b are the 0-based line indexes where it applies.
type diffOp struct {
	kind rune
	text string
	a, b int
}

// diffLines computes a shortest edit script from a to b with Myers'
// O((N+M)D) algorithm.
func diffLines(a, b []string) []diffOp {
	n, m := len(a), len(b)
	maxD := n + m
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		snapshot := make([]int, len(v))
		copy(snapshot, v)
		trace = append(trace, snapshot)
		done := false
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: insertion
			} else {
				x = v[offset+k-1] + 1 // right: deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				done = true
				break
			}
		}
		if done {
			break
		}
	}
	// Walk the trace back from (n, m) to (0, 0).
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && vd[offset+k-1] < vd[offset+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := vd[offset+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x], x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{'+', b[y], x, y})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x], x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x], x, y})
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

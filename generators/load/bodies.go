package load

import "bytes"

// blankFuncBodies overwrites, in place, the contents of the body of every
// function declared at the top level of the Go source src with spaces,
// keeping every line break, so that a parse of the result has the same
// declarations, doc comments and positions as one of src, with empty bodies.
// Targets read declarations, never statements; packages the run only
// follows (dependencies, the standard library) are read this way, and the
// parser then spends nothing on code that cannot matter.
//
// The scan knows comments, interpreted, raw and rune literals, and the type
// literals a signature may hold (struct{...}, interface{...}); a body is
// found only from a func keyword at the start of a line at the top level,
// gofmt's layout. Whatever it does not recognise it leaves as it is: a body
// that holds a line directive, an unterminated literal or comment, or a body
// without its closing brace stop the blanking, and the parser sees those
// bytes unchanged.
func blankFuncBodies(src []byte) {
	depth := 0     // brace depth
	body := -1     // offset of the '{' of the body being scanned
	bodyDepth := 0 // depth outside that body
	inSig := false // between a top-level func keyword and its body
	parens := 0    // ( and [ depth inside the signature
	typeWord := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := bytes.IndexByte(src[i:], '\n')
			if end < 0 {
				return
			}
			i += end
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return
			}
			i += 2 + end + 2
			typeWord = false
			continue
		case c == '"' || c == '\'':
			end := quotedEnd(src, i)
			if end < 0 {
				return
			}
			i = end
			typeWord = false
			continue
		case c == '`':
			end := bytes.IndexByte(src[i+1:], '`')
			if end < 0 {
				return
			}
			i += 1 + end + 1
			typeWord = false
			continue
		case isIdentByte(c):
			start := i
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			word := src[start:i]
			typeWord = inSig && (string(word) == "struct" || string(word) == "interface")
			if depth == 0 && string(word) == "func" && (start == 0 || src[start-1] == '\n') {
				inSig, parens = true, 0
			}
			continue
		case c == '{':
			if inSig && parens == 0 && depth == 0 && !typeWord {
				inSig, body, bodyDepth = false, i, depth
			}
			depth++
		case c == '}':
			depth--
			if body >= 0 && depth == bodyDepth {
				blank(src[body+1 : i])
				body = -1
			}
		case c == '(' || c == '[':
			if inSig {
				parens++
			}
		case c == ')' || c == ']':
			if inSig {
				parens--
			}
		case c == '\n':
			if inSig && parens == 0 && depth == 0 {
				inSig = false // a declaration without a body
			}
		}
		if c != ' ' && c != '\t' {
			typeWord = false
		}
		i++
	}
}

// blank overwrites b with spaces, keeping line breaks, unless it holds a
// line directive, which would move the positions of what follows.
func blank(b []byte) {
	if bytes.Contains(b, []byte("//line ")) || bytes.Contains(b, []byte("/*line ")) {
		return
	}
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
}

// quotedEnd returns the offset just past the interpreted string or rune
// literal that starts at src[i], or -1 when it is not closed on its line.
func quotedEnd(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

package output

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// Header is the license header of generated files.
type Header struct {
	text string         // trimmed; "" for none
	year *regexp.Regexp // matches the header at a file's start, capturing YEAR; nil without YEAR
}

// LoadHeader reads --go-header-file.
func LoadHeader(file string) (Header, error) {
	if file == "" {
		return Header{}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Header{}, inputerr.Errorf("", "--go-header-file: %v", err)
	}
	if err := checkHeader(file, data); err != nil {
		return Header{}, err
	}
	// gofmt trims trailing blanks in comments: do it here so that the year
	// of a formatted file can be matched against the header.
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	text := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	h := Header{text: text}
	if strings.Contains(text, "YEAR") {
		parts := strings.Split(text, "YEAR")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		if h.year, err = regexp.Compile(`\A` + strings.Join(parts, `(\d{4})`)); err != nil {
			return Header{}, inputerr.Errorf(file+":1", "--go-header-file: cannot use this header: %v", err)
		}
	}
	return h, nil
}

// checkHeader verifies that a header is UTF-8 made only of Go comments, and
// holds no build constraint (which would make the go tool skip every
// generated file).
func checkHeader(file string, data []byte) error {
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8At(data)], []byte("\n"))
		return inputerr.Errorf(fmt.Sprintf("%s:%d", file, line), "--go-header-file is not valid UTF-8: save it as UTF-8")
	}
	fset := token.NewFileSet()
	tf := fset.AddFile(file, -1, len(data))
	var sc scanner.Scanner
	var scanErr string
	var errPos token.Position
	sc.Init(tf, data, func(pos token.Position, msg string) {
		if scanErr == "" {
			scanErr, errPos = msg, pos
		}
	}, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if scanErr != "" {
			return inputerr.Errorf(fmt.Sprintf("%s:%d", file, errPos.Line), "--go-header-file must hold only Go comments: %s", scanErr)
		}
		if tok == token.EOF {
			return nil
		}
		p := fset.Position(pos)
		if tok != token.COMMENT {
			return inputerr.Errorf(fmt.Sprintf("%s:%d", file, p.Line), "--go-header-file must hold only Go comments (// or /* */), found %s: comment it out", tok)
		}
		if strings.HasPrefix(lit, "//go:build") || strings.HasPrefix(lit, "// +build") {
			return inputerr.Errorf(fmt.Sprintf("%s:%d", file, p.Line), "--go-header-file holds a build constraint, which would exclude every generated file: remove it")
		}
	}
}

// invalidUTF8At returns the offset of the first invalid UTF-8 byte of data.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// forFile returns the header text for a file whose current content is
// existing (nil if it does not exist): the year of an existing file with the
// same header is kept, else thisYear is used.
func (h Header) forFile(existing []byte, thisYear int) string {
	if h.year == nil {
		return h.text
	}
	year := strconv.Itoa(thisYear)
	if m := h.year.FindSubmatch(existing); m != nil {
		year = string(m[1])
	}
	return strings.ReplaceAll(h.text, "YEAR", year)
}

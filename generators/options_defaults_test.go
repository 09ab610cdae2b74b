package generators

import (
	"os"
	"testing"
	"time"
)

// TestOptionsDefaults checks that the fields of Options that have a default
// get the one their doc comments name and that set fields are kept.
func TestOptionsDefaults(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	fixed := time.Date(2031, 5, 6, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		in         Options
		wantDir    string
		wantYearOf func(year int) bool
	}{
		{"zero value: the current directory and time.Now", Options{}, wd,
			// time.Now's year; a run that straddles New Year may see the next.
			func(y int) bool { now := time.Now().Year(); return y == now || y == now-1 }},
		{"explicit values are kept", Options{WorkDir: "/some/where", Now: func() time.Time { return fixed }}, "/some/where",
			func(y int) bool { return y == 2031 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.withDefaults()
			if got.WorkDir != tc.wantDir {
				t.Errorf("WorkDir = %q, want %q", got.WorkDir, tc.wantDir)
			}
			if got.Now == nil {
				t.Fatal("Now is nil")
			}
			if y := got.Now().Year(); !tc.wantYearOf(y) {
				t.Errorf("Now().Year() = %d", y)
			}
			if again := got.withDefaults(); again.WorkDir != got.WorkDir {
				t.Errorf("withDefaults is not idempotent: WorkDir %q then %q", got.WorkDir, again.WorkDir)
			}
		})
	}
}

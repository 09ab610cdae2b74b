package output

import "testing"

// TestIsLeftover: our temporary files, in the current and the earlier
// naming, are recognised; other files are not.
func TestIsLeftover(t *testing.T) {
	for name, want := range map[string]bool{
		TempFilePrefix + "pod.go.123456": true,
		".pod.go.123456.tmp":             true, // earlier versions
		".pod.go.12a.tmp":                false,
		"pod.go":                         false,
		".pod.go":                        false,
		"notes.tmp":                      false,
		".informer-gen.tmp":              false,
	} {
		if got := isLeftover(name); got != want {
			t.Errorf("isLeftover(%q) = %v, want %v", name, got, want)
		}
	}
}

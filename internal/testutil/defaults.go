package testutil

import "testing"

// CheckDefaulted checks one interface-typed field of an Options struct
// after withDefaults: got must not be nil; when the test set the field
// (want is not nil) got must be that very value; when it did not,
// checkDefault(got) checks the default put in its place.
func CheckDefaulted[I comparable](t testing.TB, field string, got, want I, checkDefault func(I)) {
	t.Helper()
	var unset I
	switch {
	case got == unset:
		t.Errorf("withDefaults() left %s nil", field)
	case want != unset && got != want:
		t.Errorf("withDefaults() replaced the explicit %s with %T", field, got)
	case want == unset:
		checkDefault(got)
	}
}

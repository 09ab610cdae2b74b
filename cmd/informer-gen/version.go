package main

import (
	"runtime/debug"
	"strings"
)

// version describes this build: the module version when installed with
// `go install …@version`, else "devel", plus the VCS revision when the build
// recorded one and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	parts := []string{v}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, rev+dirty)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}

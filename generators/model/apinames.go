package model

import "strings"

// PackageAlias returns the import name for an API package: its last two path
// elements ("autoscalingv1"), as client-gen's import tracker starts from.
func PackageAlias(pkg string) string {
	parts := strings.Split(pkg, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return PackageName(strings.Join(parts, ""))
}

// GroupVersionPath is client-gen's group/version of an API package: its last
// two path elements, under which the apply configurations are found.
func GroupVersionPath(pkg string) string {
	parts := strings.Split(pkg, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

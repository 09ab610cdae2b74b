package generators

import (
	"fmt"
	"strings"

	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/plan"
	"github.com/typedinformer/typedinformer/generators/targets/conversion"
	"github.com/typedinformer/typedinformer/generators/targets/deepcopy"
	"github.com/typedinformer/typedinformer/generators/targets/defaulter"
	"github.com/typedinformer/typedinformer/generators/targets/register"
)

// helperTarget is one of the targets that write a file into each input
// package asking for it (deepcopy, register, defaulter, conversion), as
// Build runs it.
type helperTarget struct {
	// what names the files in logs ("deepcopy files").
	what string
	// tag is what a package carries to ask for the file, as the warning
	// of an only-mode run that finds none names it.
	tag string
	// marker is the upstream tool's line: its file at a planned path is
	// replaced.
	marker string
	plan   func(*load.Loader, []load.InputPackage) ([]plan.File, error)
	// paths are the paths plan may write for the packages.
	paths func([]load.InputPackage) []string
}

// helperTargets are the targets of that kind the options ask for, in the
// order Build plans them.
func (o *Options) helperTargets() []helperTarget {
	var out []helperTarget
	if o.WithDeepCopy {
		do := deepcopy.Options{OutputFile: o.DeepCopyOutputFile}
		out = append(out, helperTarget{
			what: "deepcopy files", tag: "+" + load.DeepCopyTag, marker: deepcopy.Marker,
			plan:  func(l *load.Loader, p []load.InputPackage) ([]plan.File, error) { return deepcopy.Plan(l, p, do) },
			paths: func(p []load.InputPackage) []string { return deepcopy.OutputPaths(p, do) },
		})
	}
	if o.WithRegister {
		ro := register.Options{OutputFile: o.RegisterOutputFile}
		out = append(out, helperTarget{
			what: "register files", tag: "+" + load.RegisterTag + " or +groupName", marker: register.Marker,
			plan:  func(l *load.Loader, p []load.InputPackage) ([]plan.File, error) { return register.Plan(l, p, ro) },
			paths: func(p []load.InputPackage) []string { return register.OutputPaths(p, ro) },
		})
	}
	if o.WithConversion {
		co := conversion.Options{OutputFile: o.ConversionOutputFile, BasePeerDirs: o.BasePeerDirs, ExtraPeerDirs: o.ExtraPeerDirs, SkipUnsafe: o.SkipUnsafe}
		out = append(out, helperTarget{
			what: "conversion files", tag: "+" + conversion.Tag, marker: conversion.Marker,
			plan:  func(l *load.Loader, p []load.InputPackage) ([]plan.File, error) { return conversion.Plan(l, p, co) },
			paths: func(p []load.InputPackage) []string { return conversion.OutputPaths(p, co) },
		})
	}
	if o.WithDefaulter {
		do := defaulter.Options{OutputFile: o.DefaulterOutputFile, ExtraPeerPackages: o.DefaulterExtraPeerPackages}
		out = append(out, helperTarget{
			what: "defaults files", tag: "+" + load.DefaulterTag, marker: defaulter.Marker,
			plan:  func(l *load.Loader, p []load.InputPackage) ([]plan.File, error) { return defaulter.Plan(l, p, do) },
			paths: func(p []load.InputPackage) []string { return defaulter.OutputPaths(p, do) },
		})
	}
	return out
}

// nothingToDo is the warning of an only-mode run whose target t planned no
// file: none of the packages the patterns name carries its tag.
func (o *Options) nothingToDo(t helperTarget) string {
	patterns := append(append([]string{}, o.Patterns...), o.HelperPatterns...)
	return fmt.Sprintf("no package in %s has %s; nothing written", strings.Join(patterns, " "), t.tag)
}

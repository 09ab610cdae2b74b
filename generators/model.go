package generators

import "github.com/typedinformer/typedinformer/generators/model"

// Model is the API surface a run generates from: its groups, versions and
// types, as package model describes them.
type Model = model.Model

// Group is one API group of a Model.
type Group = model.Group

// Version is one version of a Group.
type Version = model.Version

// Type is one +genclient type of a Version.
type Type = model.Type

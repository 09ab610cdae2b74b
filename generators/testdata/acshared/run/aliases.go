package run

// PodTemplate is an alias of a struct of this package, declared in a file
// without json tags: an apply configuration's member of this type is
// written as Template.
type PodTemplate = Template

// ResourceType is an alias of a predeclared type: a member of this type is
// written as string.
type ResourceType = string

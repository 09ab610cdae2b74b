// Package v1alpha1 holds version v1alpha1 of the samples.typedinformer.dev
// API: Foo, which the example controller turns into a ConfigMap, and the
// cluster-scoped FooClass that Foos refer to.
//
// +k8s:deepcopy-gen=package
// +groupName=samples.typedinformer.dev
package v1alpha1

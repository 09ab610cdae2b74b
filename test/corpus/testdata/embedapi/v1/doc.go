// Package v1 is an API package whose struct embeds k8s.io/api's Container
// inline, as argo-workflows' UserContainer does: a struct of a package that
// is no input of the apply configurations' run.
//
// +groupName=embed.example.com
package v1

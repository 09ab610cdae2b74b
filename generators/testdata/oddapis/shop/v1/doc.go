// Package v1 holds types that are definitions and aliases of a struct of
// the same package, and a type whose name starts with a non-ASCII letter.
//
// +groupName=shop.example.com
package v1

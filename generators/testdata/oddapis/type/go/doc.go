// Package golang is in directories named like Go keywords (type/go).
//
// +groupName=type.example.com
package golang

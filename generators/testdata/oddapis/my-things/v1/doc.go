// Package v1 is in a directory whose name is no Go identifier; its group
// says which Go name client-gen gave it.
//
// +groupName=my-things.example.com
// +groupGoName=MyThings
package v1

// Package v2 re-exports v1's types, as a deprecated version often does.
//
// +groupName=shop.example.com
package v2

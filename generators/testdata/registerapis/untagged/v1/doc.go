// Package v1 has objects and no register-gen tag.
package v1

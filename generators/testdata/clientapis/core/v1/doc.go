// Package v1 is a core group (no group name): its client uses /api.
//
// +groupName=
package v1

// Package core holds the internal versions of the test types.
package core

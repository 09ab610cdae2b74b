// Package runtime's import path ends in runtime, the name register-gen
// would give apimachinery's runtime package, which therefore gets another.
//
// +groupName=clash.example.com
package runtime

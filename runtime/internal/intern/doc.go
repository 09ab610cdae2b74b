// Package intern holds the bounded table behind every sharing of equal
// values in the runtime: lean's Interner (strings and shared parts) and
// the reflector's sharing of equal managedFields documents.
//
// A Generations is not safe for concurrent use: its owner either uses it
// from one goroutine (the reflector) or guards it with a lock of its own
// (lean's Interner, which looks up the current generation under a read
// lock and changes the table under the write lock).
package intern

// Package cache is the typed informer runtime: a thread-safe typed store with
// indexes, a reflector that lists and watches an API server, and a shared
// index informer that fans events out to typed handlers. Between reflector
// and store each informer drives a DeltaFIFO (internal/deltafifo), which
// users never see.
//
// The data flow mirrors client-go's tools/cache, but every stage holds and
// passes objects of the informer's type T rather than interface{}.
package cache

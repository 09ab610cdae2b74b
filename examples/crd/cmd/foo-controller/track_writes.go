//go:build !soak_dropdelete

package main

// trackWrites: the controller reads its own writes back through its
// listers (a cache.WriteTracker on its clients and factories). The
// soak_dropdelete build turns it off, see there.
const trackWrites = true

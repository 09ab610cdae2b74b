//go:build !soak_dropdelete && !soak_notrack

package main

// trackWrites: the controller reads its own writes back through its
// listers (a cache.WriteTracker on its clients and factories). The
// soak_dropdelete and soak_notrack builds turn it off, see there.
const trackWrites = true

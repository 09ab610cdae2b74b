//go:build unix

package wire

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used,
// which a machine loaded by others inflates far less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

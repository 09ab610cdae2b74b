package framework

import (
	"net"
	"runtime"
	"strconv"
	"testing"
)

func TestFreePortIsOutsideTheEphemeralRangeAndNotRepeated(t *testing.T) {
	low := ephemeralLow()
	seen := map[int]bool{}
	for range 100 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if runtime.GOOS == "linux" && (p < lowestPort || p >= low) {
			t.Fatalf("port %d is outside [%d, %d)", p, lowestPort, low)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		l.Close()
	}
}

package sharding

import (
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/runtime/sharding/shardingtest"
)

// TestRingConfigDefaults checks that each zero field of RingConfig that has
// a default gets the one its doc comment names, that set fields are kept,
// and that NewRing applies them.
func TestRingConfigDefaults(t *testing.T) {
	store := shardingtest.NewLeases()
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	base := RingConfig{Name: "r", Identity: "a", Field: FieldUID, Leases: store}
	documented := base
	documented.LeaseDuration, documented.RenewPeriod, documented.SafetyMargin = 15*time.Second, 5*time.Second, 2*time.Second
	documented.VNodes, documented.Clock = 256, clock.RealClock{}
	explicit := base
	explicit.LeaseDuration, explicit.RenewPeriod, explicit.SafetyMargin = 30*time.Second, 10*time.Second, 3*time.Second
	explicit.VNodes, explicit.Clock, explicit.KeepLeaseOnStop = 8, fc, true
	for _, tc := range []struct {
		name     string
		in, want RingConfig
	}{
		{"zero fields get the documented defaults", base, documented},
		{"explicit values are kept", explicit, explicit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.withDefaults(); got != tc.want {
				t.Errorf("withDefaults() = %+v\nwant %+v", got, tc.want)
			}
			r, err := NewRing(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if r.cfg != tc.want || r.clock != tc.want.Clock {
				t.Errorf("NewRing kept %+v, clock %T\nwant %+v", r.cfg, r.clock, tc.want)
			}
		})
	}
}

package cache

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// TestReflectorOptionsDefaults checks that each unset field of
// ReflectorOptions gets the default its doc comment names, that set fields
// are kept.
func TestReflectorOptionsDefaults(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	explicit := ReflectorOptions{
		PageSize:          7,
		MinWatchTimeout:   time.Minute,
		InitialBackoff:    time.Millisecond,
		MaxBackoff:        time.Second,
		BackoffResetAfter: time.Hour,
		Clock:             fc,
	}
	documented := ReflectorOptions{
		PageSize:          500,
		MinWatchTimeout:   5 * time.Minute,
		InitialBackoff:    800 * time.Millisecond,
		MaxBackoff:        30 * time.Second,
		BackoffResetAfter: 2 * time.Minute,
		Clock:             clock.RealClock{},
	}
	for _, tc := range []struct {
		name     string
		in, want ReflectorOptions
	}{
		{"zero value gets the documented defaults", ReflectorOptions{}, documented},
		{"negative numbers get the defaults", ReflectorOptions{PageSize: -1, MinWatchTimeout: -1, InitialBackoff: -1, MaxBackoff: -1, BackoffResetAfter: -1}, documented},
		{"explicit values are kept", explicit, explicit},
		{"switches are kept", ReflectorOptions{DisableWatchList: true, DisableManagedFieldsSharing: true},
			func() ReflectorOptions {
				o := documented
				o.DisableWatchList, o.DisableManagedFieldsSharing = true, true
				return o
			}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.withDefaults(); got != tc.want {
				t.Errorf("withDefaults() = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestSharedIndexInformerOptionsDefaults checks the informer's defaults:
// name, backlog threshold and the reflector's (including the one clock the
// informer, its processor and its reflector share).
func TestSharedIndexInformerOptionsDefaults(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	type pods = SharedIndexInformerOptions[*corev1.Pod]
	for _, tc := range []struct {
		name          string
		in            pods
		wantName      string
		wantThreshold int
		wantClock     clock.Clock
		wantPageSize  int64
	}{
		{"zero value", pods{}, "*v1.Pod", DefaultHandlerBacklogThreshold, clock.RealClock{}, DefaultPageSize},
		{"core resource names it", pods{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
			"pods", 10000, clock.RealClock{}, 500},
		{"group resource names it", pods{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "foos"}},
			"foos.example.com", 10000, clock.RealClock{}, 500},
		{"explicit values are kept", pods{
			Name: "mine", Resource: schema.GroupVersionResource{Resource: "pods"}, HandlerBacklogThreshold: 3,
			Reflector: ReflectorOptions{Clock: fc, PageSize: 9},
		}, "mine", 3, fc, 9},
		{"negative threshold (disabled) is kept", pods{HandlerBacklogThreshold: -1}, "*v1.Pod", -1, clock.RealClock{}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.withDefaults()
			if got.Name != tc.wantName || got.HandlerBacklogThreshold != tc.wantThreshold ||
				got.Reflector.Clock != tc.wantClock || got.Reflector.PageSize != tc.wantPageSize {
				t.Errorf("withDefaults() = name %q, threshold %d, clock %T, page size %d; want %q, %d, %T, %d",
					got.Name, got.HandlerBacklogThreshold, got.Reflector.Clock, got.Reflector.PageSize,
					tc.wantName, tc.wantThreshold, tc.wantClock, tc.wantPageSize)
			}
			if got.Reflector != tc.in.Reflector.withDefaults() {
				t.Errorf("Reflector = %+v, want its own defaults %+v", got.Reflector, tc.in.Reflector.withDefaults())
			}
			s := newSharedIndexInformer[*corev1.Pod](nopLW{}, tc.in).(*sharedIndexInformer[*corev1.Pod])
			if s.Name() != tc.wantName || s.clock != tc.wantClock || s.proc.Clock != tc.wantClock ||
				s.opts.HandlerBacklogThreshold != tc.wantThreshold {
				t.Errorf("informer: name %q, clock %T, processor clock %T, threshold %d; want %q, %T, %d",
					s.Name(), s.clock, s.proc.Clock, s.opts.HandlerBacklogThreshold, tc.wantName, tc.wantClock, tc.wantThreshold)
			}
		})
	}
}

// nopLW is a ListerWatcher that is never called.
type nopLW struct{}

func (nopLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return &corev1.PodList{}, nil
}

func (nopLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

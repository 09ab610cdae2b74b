package informers_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// namesProvider records the informer names it was asked for.
type namesProvider struct {
	mu    sync.Mutex
	names []string
}

func (p *namesProvider) NewInformerMetrics(name string) cache.InformerMetrics {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names = append(p.names, name)
	return nil
}

func TestWithInformerMetricsGivesEveryInformerTheProvider(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []informers.Option
		want []string
	}{
		{"one namespace", nil, []string{"pods()"}},
		{"per namespace", []informers.Option{informers.WithNamespaces("b", "a")}, []string{"pods(a)/a", "pods(b)/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &namesProvider{}
			f := informers.NewFactory(time.Minute, append(tc.opts, informers.WithInformerMetrics(p))...)
			informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
				return newPodSource().newInformer(ns, resync)
			})
			if !slices.Equal(p.names, tc.want) {
				t.Fatalf("provider asked for %q, want %q", p.names, tc.want)
			}
		})
	}
}

func TestWithInformerName(t *testing.T) {
	n, err := cache.NewInformerName("controller")
	if err != nil {
		t.Fatal(err)
	}
	if got := informers.NewFactory(0, informers.WithInformerName(n)).InformerName(); got != n {
		t.Fatalf("InformerName() = %v, want the one given", got)
	}
	if got := informers.NewFactory(0).InformerName(); got != nil {
		t.Fatalf("InformerName() without the option = %v, want nil", got)
	}
}

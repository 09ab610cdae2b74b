package soak

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
)

// writtenAt is the annotation the controller's trace reads to measure event
// latency (server write to handler).
const writtenAt = "soak.typedinformer.dev/written-at"

// className is the FooClass some Foos use; its defaults merge under their data.
const className = "soak-base"

// loadConfig shapes the load.
type loadConfig struct {
	namespaces []string
	// rate is the steady writes per second.
	rate float64
	// burstEvery is the mean time between bursts of burstSize writes sent
	// by burstWorkers concurrently.
	burstEvery   time.Duration
	burstSize    int
	burstWorkers int
	// maxFoos bounds the Foos per namespace so that the caches (and the
	// heap the leak check watches) stay about the same size.
	maxFoos int
}

// loadGen writes Foos and ConfigMaps. Its random choices come from one
// seeded source, so a seed replays the same sequence of intended writes
// (their timing against faults still varies).
type loadGen struct {
	cfg loadConfig
	c   clients
	rnd *rand.Rand
	mu  sync.Mutex // guards rnd and seq
	seq int

	writes, failed atomic.Int64
}

func newLoadGen(cfg loadConfig, c clients, seed uint64) *loadGen {
	return &loadGen{cfg: cfg, c: c, rnd: rand.New(rand.NewPCG(seed, 0x5eed))}
}

func (l *loadGen) intn(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rnd.IntN(n)
}

func (l *loadGen) next() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

// run writes at the steady rate, with bursts, until ctx ends; it returns
// once every write it started has returned.
func (l *loadGen) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(time.Duration(float64(time.Second) / l.cfg.rate))
	defer tick.Stop()
	burst := time.NewTimer(l.burstDelay())
	defer burst.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			l.op(ctx)
		case <-burst.C:
			n := l.cfg.burstSize / l.cfg.burstWorkers
			for range l.cfg.burstWorkers {
				wg.Go(func() {
					for range n {
						if ctx.Err() != nil {
							return
						}
						l.op(ctx)
					}
				})
			}
			burst.Reset(l.burstDelay())
		}
	}
}

func (l *loadGen) burstDelay() time.Duration {
	mean := int(l.cfg.burstEvery / time.Millisecond)
	return time.Duration(mean/2+l.intn(mean)) * time.Millisecond
}

// op makes one random write.
func (l *loadGen) op(ctx context.Context) {
	ns := l.cfg.namespaces[l.intn(len(l.cfg.namespaces))]
	var err error
	switch k := l.intn(100); {
	case k < 30:
		err = l.createFoo(ctx, ns)
	case k < 60:
		err = l.updateFoo(ctx, ns)
	case k < 75:
		err = l.deleteFoo(ctx, ns)
	case k < 85:
		err = l.driftConfigMap(ctx, ns)
	default:
		err = l.noiseConfigMap(ctx, ns)
	}
	l.writes.Add(1)
	if err != nil {
		l.failed.Add(1)
	}
}

func (l *loadGen) randomData() map[string]string {
	d := map[string]string{}
	for i := range 1 + l.intn(4) {
		d["k"+strconv.Itoa(i)] = strconv.Itoa(l.intn(1000))
	}
	return d
}

func stamp(m *metav1.ObjectMeta) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[writtenAt] = time.Now().Format(time.RFC3339Nano)
}

func (l *loadGen) foos(ctx context.Context, ns string) ([]samplesv1alpha1.Foo, error) {
	list, err := l.c.samples.SamplesV1alpha1().Foos(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// pick returns a random Foo of ns, or nil when there is none.
func (l *loadGen) pick(ctx context.Context, ns string) (*samplesv1alpha1.Foo, int, error) {
	foos, err := l.foos(ctx, ns)
	if err != nil || len(foos) == 0 {
		return nil, 0, err
	}
	slices.SortFunc(foos, func(a, b samplesv1alpha1.Foo) int { return cmpStrings(a.Name, b.Name) })
	return &foos[l.intn(len(foos))], len(foos), nil
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (l *loadGen) createFoo(ctx context.Context, ns string) error {
	foos, err := l.foos(ctx, ns)
	if err != nil {
		return err
	}
	if len(foos) >= l.cfg.maxFoos {
		return l.deleteFoo(ctx, ns)
	}
	// Names are never reused: a ConfigMap left by a deleted Foo of the
	// same name would be another owner's (the controller's conflict case).
	foo := &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foo-" + strconv.Itoa(l.next())},
		Spec:       samplesv1alpha1.FooSpec{Data: l.randomData()},
	}
	if l.intn(4) == 0 {
		foo.Spec.ClassName = className
	}
	stamp(&foo.ObjectMeta)
	_, err = l.c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, foo, metav1.CreateOptions{})
	return err
}

func (l *loadGen) updateFoo(ctx context.Context, ns string) error {
	foo, _, err := l.pick(ctx, ns)
	if err != nil || foo == nil {
		return err
	}
	foo.Spec.Data = l.randomData()
	stamp(&foo.ObjectMeta)
	_, err = l.c.samples.SamplesV1alpha1().Foos(ns).Update(ctx, foo, metav1.UpdateOptions{})
	return err
}

func (l *loadGen) deleteFoo(ctx context.Context, ns string) error {
	foo, n, err := l.pick(ctx, ns)
	if err != nil || foo == nil || n <= l.cfg.maxFoos/3 {
		return err
	}
	return l.c.samples.SamplesV1alpha1().Foos(ns).Delete(ctx, foo.Name, metav1.DeleteOptions{})
}

// driftConfigMap changes or deletes a Foo's ConfigMap behind the
// controller's back; it must put it back.
func (l *loadGen) driftConfigMap(ctx context.Context, ns string) error {
	cms, err := l.c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: controller.FooLabel})
	if err != nil || len(cms.Items) == 0 {
		return err
	}
	slices.SortFunc(cms.Items, func(a, b corev1.ConfigMap) int { return cmpStrings(a.Name, b.Name) })
	cm := &cms.Items[l.intn(len(cms.Items))]
	if l.intn(3) == 0 {
		return l.c.kube.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{})
	}
	cm.Data = maps.Clone(cm.Data)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["drift"] = strconv.Itoa(l.intn(1000))
	_, err = l.c.kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// noiseConfigMap writes ConfigMaps no Foo owns: the controller's informer
// caches them, its handlers map them to nothing.
func (l *loadGen) noiseConfigMap(ctx context.Context, ns string) error {
	name := fmt.Sprintf("noise-%d", l.intn(10))
	cms := l.c.kube.CoreV1().ConfigMaps(ns)
	cur, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err != nil:
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: l.randomData()}, metav1.CreateOptions{})
		return err
	case l.intn(3) == 0:
		return cms.Delete(ctx, name, metav1.DeleteOptions{})
	default:
		cur.Data = l.randomData()
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
}

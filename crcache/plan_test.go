package crcache

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/randfill"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// planTypes is every Go type of core/v1, apps/v1 and batch/v1 the scheme
// knows (lists included), and examples/crd's Foo.
func planTypes(t *testing.T) []reflect.Type {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, samplesv1alpha1.Install} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	groups := map[schema.GroupVersion]bool{
		corev1.SchemeGroupVersion: true, appsv1.SchemeGroupVersion: true, batchv1.SchemeGroupVersion: true,
		schema.GroupVersion(samplesv1alpha1.GroupVersion): true,
	}
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	for gvk, typ := range s.AllKnownTypes() {
		if !groups[gvk.GroupVersion()] || seen[typ] || typ.PkgPath() == reflect.TypeFor[metav1.Status]().PkgPath() {
			continue
		}
		seen[typ] = true
		out = append(out, typ)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) < 60 {
		t.Fatalf("only %d types", len(out))
	}
	return out
}

// filler fills every exported field, with values for the types whose
// fields are unexported or an interface.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*q = *resource.NewQuantity(c.Int63n(1<<40), resource.DecimalSI)
			case 1: // too large for an int64: held as an inf.Dec
				*q = resource.MustParse(fmt.Sprintf("%d123456789012345678901234567890", c.Int63n(1000)+1))
			default:
				*q = *resource.NewMilliQuantity(c.Int63n(1<<20), resource.BinarySI)
			}
			if c.Bool() {
				_ = q.String() // caches the string form
			}
		},
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Unix(c.Int63n(1<<32), c.Int63n(1e9)) },
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(metav1.Unix(c.Int63n(1<<32), c.Int63n(1e9)).Time)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				c.Fill(&r.Raw)
			}
			if c.Bool() {
				cm := &corev1.ConfigMap{}
				c.Fill(cm)
				r.Object = cm
			}
		},
	)
}

// planCopy copies src (a *T) with T's plan into a new *T.
func planCopy(t *testing.T, p *planner, src any) any {
	t.Helper()
	v := reflect.ValueOf(src)
	dst := reflect.New(v.Type().Elem())
	p.root.copyAlone(dst.UnsafePointer(), v.UnsafePointer())
	return dst.Interface()
}

func TestCopyPlanEqualsDeepCopy(t *testing.T) {
	for _, typ := range planTypes(t) {
		t.Run(typ.String(), func(t *testing.T) {
			p, err := newPlanner(typ)
			if err != nil {
				t.Fatalf("no plan: %v", err)
			}
			for seed := range int64(30) {
				src := reflect.New(typ).Interface().(runtime.Object)
				filler(seed).Fill(src)
				want := src.DeepCopyObject()
				got := planCopy(t, p, src)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d: the plan's copy differs from DeepCopyObject's", seed)
				}
				if shared := sharedMemory(reflect.ValueOf(got), reflect.ValueOf(src)); shared != "" {
					t.Fatalf("seed %d: the copy shares memory with the source: %s", seed, shared)
				}
				if !reflect.DeepEqual(src, want) {
					t.Fatalf("seed %d: the source changed", seed)
				}
			}
		})
	}
}

// span is memory a value owns: a pointer target, a slice backing (to its
// capacity), a map.
type span struct {
	start, end uintptr
	what       string
}

// spans collects what v reaches and owns, strings aside.
func spans(v reflect.Value, path string, seen map[span]bool, out *[]span) {
	add := func(start, size uintptr, what string) bool {
		if size == 0 {
			return false
		}
		s := span{start, start + size, what}
		if seen[span{start: s.start, end: s.end}] {
			return false
		}
		seen[span{start: s.start, end: s.end}] = true
		*out = append(*out, s)
		return true
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if add(uintptr(v.UnsafePointer()), v.Type().Elem().Size(), path) || v.Type().Elem().Size() == 0 {
			spans(v.Elem(), path, seen, out)
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		add(uintptr(v.UnsafePointer()), uintptr(v.Cap())*v.Type().Elem().Size(), path+"[]")
		for i := range v.Len() {
			spans(v.Index(i), fmt.Sprintf("%s[%d]", path, i), seen, out)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		add(uintptr(v.UnsafePointer()), 1, path+"{}")
		for it := v.MapRange(); it.Next(); {
			spans(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), seen, out)
		}
	case reflect.Interface:
		if !v.IsNil() {
			spans(v.Elem(), path, seen, out)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			return // its location is shared, as DeepCopyInto shares it
		}
		if !v.CanAddr() { // a map value: what it points to is what counts
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = c
		}
		for i := range v.NumField() {
			f := v.Field(i)
			if !v.Type().Field(i).IsExported() {
				// Read unexported fields (inf.Dec's big.Int words) too.
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			spans(f, path+"."+v.Type().Field(i).Name, seen, out)
		}
	case reflect.Array:
		for i := range v.Len() {
			spans(v.Index(i), fmt.Sprintf("%s[%d]", path, i), seen, out)
		}
	}
}

// sharedMemory names memory both a and b reach, or is "".
func sharedMemory(a, b reflect.Value) string {
	var as, bs []span
	spans(a, "copy", map[span]bool{}, &as)
	spans(b, "source", map[span]bool{}, &bs)
	slices.SortFunc(bs, func(x, y span) int { return int(x.start) - int(y.start) })
	for _, s := range as {
		i := sort.Search(len(bs), func(i int) bool { return bs[i].end > s.start })
		for ; i < len(bs) && bs[i].start < s.end; i++ {
			if bs[i].end > s.start {
				return fmt.Sprintf("%s and %s", s.what, bs[i].what)
			}
		}
	}
	return ""
}

// The disjointness check sees a shallow slice: a shallow copy of a Pod
// shares its containers.
func TestSharedMemorySeesShallowCopies(t *testing.T) {
	src := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Args: []string{"x"}}}}}
	deep := src.DeepCopy()
	if s := sharedMemory(reflect.ValueOf(deep), reflect.ValueOf(src)); s != "" {
		t.Fatalf("a deep copy shares %s", s)
	}
	shallow := *deep
	shallow.Spec.Containers = src.Spec.Containers
	if s := sharedMemory(reflect.ValueOf(&shallow), reflect.ValueOf(src)); s == "" {
		t.Fatal("a shallow slice was not seen")
	}
	shallow.Spec.Containers = deep.Spec.Containers
	shallow.Spec.Containers[0].Args = src.Spec.Containers[0].Args
	if s := sharedMemory(reflect.ValueOf(&shallow), reflect.ValueOf(src)); s == "" {
		t.Fatal("a shallow nested slice was not seen")
	}
}

// benchPods are n Pods as the fuzzer fills them, every field set.
func benchPods(n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = &corev1.Pod{}
		filler(int64(i)).NilChance(0).NumElements(1, 2).Fill(pods[i])
	}
	return pods
}

// BenchmarkCopyPods copies 100 Pods into one Items slice, as a List does:
// with DeepCopyInto, and with the plan and one arena.
func BenchmarkCopyPods(b *testing.B) {
	pods := benchPods(100)
	b.Run("DeepCopyInto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items := make([]corev1.Pod, len(pods))
			for i, p := range pods {
				p.DeepCopyInto(&items[i])
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		p, err := newPlanner(reflect.TypeFor[corev1.Pod]())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			items := make([]corev1.Pod, len(pods))
			counts := make([]int, len(p.elems))
			for _, pod := range pods {
				p.root.count(unsafe.Pointer(pod), counts)
			}
			a := p.newArena(counts)
			for i, pod := range pods {
				p.root.copy(unsafe.Pointer(&items[i]), unsafe.Pointer(pod), a)
			}
		}
	})
}

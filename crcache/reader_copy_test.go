package crcache

import (
	"fmt"
	"reflect"
	gort "runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/typedinformer/typedinformer/clientgo"
)

// richPod is benchPod(i) with a value in every kind of field a deep copy
// must not share: pointers to scalars, structs and times, slices (one
// empty, not nil), maps, quantities (one too large for an int64).
func richPod(i int) *corev1.Pod {
	p := benchPod(i)
	now := metav1.Unix(int64(1_700_000_000+i), 0)
	p.DeletionTimestamp = &now
	p.DeletionGracePeriodSeconds = ptr.To[int64](30)
	p.Annotations = map[string]string{"a": "1"}
	p.Finalizers = []string{"example.com/f"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u", Controller: ptr.To(true)}}
	c := &p.Spec.Containers[0]
	c.Command = []string{}
	c.Env = append(c.Env, corev1.EnvVar{Name: "C", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}})
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("123456789012345678901234567890")}
	c.SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](1000), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}}
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
	p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}}}
	p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](300)}}
	p.Spec.NodeSelector = map[string]string{"zone": "a"}
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}},
	}}}
	p.Status.StartTime = &now
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true, Started: ptr.To(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
	return p
}

// richDeployment is a Deployment of richPod(i)'s metadata and spec.
func richDeployment(i int) *appsv1.Deployment {
	p := richPod(i)
	return &appsv1.Deployment{
		ObjectMeta: p.ObjectMeta,
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "bench"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: p.Labels}, Spec: p.Spec},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%"))}},
		},
		Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: metav1.Unix(1, 0)}}},
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
		if v.Type() == reflect.TypeFor[time.Time]() {
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

// copyReader is a reader over a client-go indexer holding objs (all of one
// type), with the copier of that type.
func copyReader(t *testing.T, objs ...runtime.Object) *reader {
	t.Helper()
	idx := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return &reader{
		indexer: idx,
		gvk:     corev1.SchemeGroupVersion.WithKind("Pod"),
		scope:   meta.RESTScopeNameNamespace,
		copier:  newCopier(reflect.TypeOf(objs[0])),
	}
}

// TestReadsCopyOnce: Get and List return what DeepCopyObject returns, with
// the GVK set, sharing no memory with the cache, for built-in types (Pod, Deployment)
// and PartialObjectMetadata.
func TestReadsCopyOnce(t *testing.T) {
	const n = 6
	cases := []struct {
		name    string
		newObj  func(i int) client.Object
		newList func() client.ObjectList
	}{
		{"Pod", func(i int) client.Object { return richPod(i) }, func() client.ObjectList { return &corev1.PodList{} }},
		{"PartialObjectMetadata", func(i int) client.Object {
			return &metav1.PartialObjectMetadata{ObjectMeta: richPod(i).ObjectMeta}
		}, func() client.ObjectList { return &metav1.PartialObjectMetadataList{} }},
		{"Deployment", func(i int) client.Object { return richDeployment(i) }, func() client.ObjectList { return &appsv1.DeploymentList{} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var objs []runtime.Object
			for i := range n {
				o := c.newObj(i)
				o.SetNamespace("ns")
				o.SetName(fmt.Sprintf("o-%d", i))
				objs = append(objs, o)
			}
			r := copyReader(t, objs...)
			want := func(o runtime.Object) runtime.Object {
				w := o.DeepCopyObject()
				w.GetObjectKind().SetGroupVersionKind(r.gvk)
				return w
			}
			for _, o := range objs {
				obj := o.(client.Object)
				out := c.newObj(99) // overwritten whole
				if err := r.Get(t.Context(), client.ObjectKeyFromObject(obj), out); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(out, want(o)) {
					t.Fatalf("Get %s differs from DeepCopyObject's", obj.GetName())
				}
				if s := sharedMemory(reflect.ValueOf(out), reflect.ValueOf(o)); s != "" {
					t.Fatalf("Get %s shares %s", obj.GetName(), s)
				}
			}
			list := c.newList()
			if err := r.List(t.Context(), list, client.InNamespace("ns")); err != nil {
				t.Fatal(err)
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != n {
				t.Fatalf("List: %d items, want %d", len(items), n)
			}
			for _, item := range items {
				key := client.ObjectKeyFromObject(item.(client.Object)).String()
				cached, _, _ := r.indexer.GetByKey(key)
				if !reflect.DeepEqual(item, want(cached.(runtime.Object))) {
					t.Fatalf("List item %s differs from DeepCopyObject's", key)
				}
			}
			if s := sharedMemory(reflect.ValueOf(list), reflect.ValueOf(objs)); s != "" {
				t.Fatalf("List shares %s", s)
			}
			// UnsafeDisableDeepCopy returns the cached objects themselves.
			list = c.newList()
			if err := r.List(t.Context(), list, client.InNamespace("ns"), client.UnsafeDisableDeepCopy); err != nil {
				t.Fatal(err)
			}
			if s := sharedMemory(reflect.ValueOf(list), reflect.ValueOf(objs)); s == "" {
				t.Fatal("List with UnsafeDisableDeepCopy copied")
			}
		})
	}
}

// TestListAllocations: a List of Pods allocates what one DeepCopyInto per
// Pod allocates, and no new object per Pod (DeepCopyObject's).
func TestListAllocations(t *testing.T) {
	var objs []runtime.Object
	for i := range 50 {
		p := richPod(i)
		p.Namespace, p.Name = "ns", fmt.Sprintf("p-%d", i)
		objs = append(objs, p)
	}
	r := copyReader(t, objs...)
	deepCopy := testing.AllocsPerRun(5, func() {
		for _, o := range objs {
			_ = o.DeepCopyObject()
		}
	})
	list := testing.AllocsPerRun(5, func() {
		if err := r.List(t.Context(), &corev1.PodList{}, client.InNamespace("ns"), client.UnsafeDisableDeepCopy); err != nil {
			t.Fatal(err)
		}
	})
	copied := testing.AllocsPerRun(5, func() {
		if err := r.List(t.Context(), &corev1.PodList{}, client.InNamespace("ns"), &client.ListOptions{UnsafeDisableDeepCopy: ptr.To(false)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d Pods: DeepCopyObject %.0f allocations, List %.0f (%.0f without copies)", len(objs), deepCopy, copied, list)
	// Beyond DeepCopyObject's but the new objects, the copying path may
	// allocate a constant few more (its Items slice is made separately).
	if want := deepCopy - float64(len(objs)) + 3; copied-list > want {
		t.Fatalf("List copies cost %.0f allocations, want at most %.0f (DeepCopyObject's but the new objects)", copied-list, want)
	}
}

// benchPod is Pod i of a 100-namespace fixture: labels, one container,
// resources and a managedFields entry, about 2 KB of heap.
func benchPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%02d", i%100), Name: fmt.Sprintf("pod-%06d", i),
			UID: "6c1b0d7e-0000-4000-8000-000000000000", ResourceVersion: fmt.Sprint(i + 1),
			Labels:        map[string]string{"app": "bench", "shard": fmt.Sprint(i % 7)},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(strings.Repeat(`{"f:spec":{}}`, 40))}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: "registry.example/app:1", Args: []string{"--port=8080", "-v=2"},
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			Env:   []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

// BenchmarkReads100k is Get and List of one namespace (1,000 Pods) over
// 100,000 cached Pods, on client-go's indexer (controller-runtime's cache)
// and on the runtime's through clientgo, both read by this reader.
func BenchmarkReads100k(b *testing.B) {
	const n = 100_000
	sides := []struct {
		name    string
		indexer func() toolscache.Indexer
	}{
		{"client-go", func() toolscache.Indexer {
			return toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
		}},
		{"runtime", func() toolscache.Indexer {
			return clientgo.NewSharedIndexInformer(&toolscache.ListWatch{}, &corev1.Pod{}, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}).GetIndexer()
		}},
	}
	for _, side := range sides {
		b.Run(side.name, func(b *testing.B) {
			idx := side.indexer()
			for i := range n {
				if err := idx.Add(benchPod(i)); err != nil {
					b.Fatal(err)
				}
			}
			r := &reader{indexer: idx, gvk: corev1.SchemeGroupVersion.WithKind("Pod"), scope: meta.RESTScopeNameNamespace, copier: newCopier(reflect.TypeFor[*corev1.Pod]())}
			gort.GC()
			b.Run("List", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var l corev1.PodList
					if err := r.List(b.Context(), &l, client.InNamespace("ns-07")); err != nil || len(l.Items) != n/100 {
						b.Fatal(err, len(l.Items))
					}
				}
			})
			b.Run("Get", func(b *testing.B) {
				keys := make([]client.ObjectKey, 1000)
				for j := range keys {
					i := j * 7919 % n
					keys[j] = client.ObjectKey{Namespace: fmt.Sprintf("ns-%02d", i%100), Name: fmt.Sprintf("pod-%06d", i)}
				}
				b.ReportAllocs()
				j := 0
				for b.Loop() {
					var p corev1.Pod
					if err := r.Get(b.Context(), keys[j%len(keys)], &p); err != nil {
						b.Fatal(err)
					}
					j++
				}
			})
			gort.KeepAlive(idx)
		})
	}
}

package lean_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

// fresh returns a copy of s in its own memory, as a decoder would produce.
func fresh(s string) string { return string([]byte(s)) }

// richPod returns a Pod with most fields a controller reads set, every
// string freshly allocated so that sharing is only what interning made.
func richPod(name, node string) *corev1.Pod {
	f := fresh
	pp := corev1.PreemptLowerPriority
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: f(name), Namespace: f("shop"), GenerateName: f("web-7d9c-"), UID: types.UID(f("uid-" + name)),
			ResourceVersion: f("42"), Generation: 3, CreationTimestamp: metav1.Unix(1700000000, 0),
			Labels:      map[string]string{f("app"): f("web"), f("pod-template-hash"): f("7d9c")},
			Annotations: map[string]string{f("prometheus.io/scrape"): f("true"), f(lean.LastAppliedAnnotation): f(`{"kind":"Pod"}`)},
			Finalizers:  []string{f("example.com/cleanup")},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: f("apps/v1"), Kind: f("ReplicaSet"), Name: f("web-7d9c"), UID: types.UID(f("rs-uid")),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: f("kube-controller-manager"), Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: f("v1"),
				FieldsType: f("FieldsV1"), FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)},
			}},
		},
		Spec: corev1.PodSpec{
			NodeName: f(node), ServiceAccountName: f("web"), SchedulerName: f("default-scheduler"),
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, PreemptionPolicy: &pp,
			NodeSelector: map[string]string{f("kubernetes.io/os"): f("linux")},
			Containers: []corev1.Container{{
				Name: f("web"), Image: f("registry.example/web:1.2.3"), Command: []string{f("/web")}, Args: []string{f("--port=8080")},
				Ports:        []corev1.ContainerPort{{Name: f("http"), ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:          []corev1.EnvVar{{Name: f("MODE"), Value: f("prod")}, {Name: f("POD"), ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: f("v1"), FieldPath: f("metadata.name")}}}},
				Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
				VolumeMounts: []corev1.VolumeMount{{Name: f("cfg"), MountPath: f("/etc/web")}},
			}},
			Volumes:     []corev1.Volume{{Name: f("cfg"), VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: f("web-cfg")}}}}},
			Tolerations: []corev1.Toleration{{Key: f("node.kubernetes.io/not-ready"), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable, HostIP: f("10.0.0.1"), PodIP: f("10.1.0.7"),
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: f("web"), Image: f("registry.example/web:1.2.3"), ImageID: f("sha256:abc"), Ready: true}},
		},
	}
}

func TestTransformKeepsEverythingButWhatItRemoves(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts lean.Options
		// want edits a copy of the input into the expected output.
		want func(p *corev1.Pod)
	}{
		{"strip managedFields", lean.Options{StripManagedFields: true}, func(p *corev1.Pod) { p.ManagedFields = nil }},
		{"strip last-applied", lean.Options{StripLastApplied: true}, func(p *corev1.Pod) { delete(p.Annotations, lean.LastAppliedAnnotation) }},
		{"intern", lean.Options{Intern: true}, func(*corev1.Pod) {}},
		{"all", lean.Options{StripManagedFields: true, StripLastApplied: true, Intern: true}, func(p *corev1.Pod) {
			p.ManagedFields = nil
			delete(p.Annotations, lean.LastAppliedAnnotation)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := richPod("p1", "node-1")
			want := in.DeepCopy()
			tc.want(want)
			out, err := lean.Transform[*corev1.Pod](tc.opts)(in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, want) {
				t.Fatalf("transform changed more than it removes:\n got %+v\nwant %+v", out, want)
			}
			// Idempotent.
			again, _ := lean.Transform[*corev1.Pod](tc.opts)(out.DeepCopy())
			if !reflect.DeepEqual(again, want) {
				t.Fatal("transform is not idempotent")
			}
		})
	}
}

func TestTransformStripLastAppliedLeavesNilAnnotationsWhenItWasTheOnlyOne(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{lean.LastAppliedAnnotation: "{}"}}}
	out, _ := lean.StripLastApplied[*corev1.Pod]()(p)
	if out.Annotations != nil {
		t.Fatalf("annotations = %v, want nil", out.Annotations)
	}
}

func same(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestInternPodSharesRepeatedStrings(t *testing.T) {
	in := lean.NewInterner(0, 0)
	tr := lean.InternPod(in)
	a, _ := tr(richPod("p1", "node-1"))
	b, _ := tr(richPod("p2", "node-1"))
	key := func(m map[string]string, k string) string {
		for mk := range m {
			if mk == k {
				return mk
			}
		}
		t.Fatalf("no key %q", k)
		return ""
	}
	for what, pair := range map[string][2]string{
		"namespace":        {a.Namespace, b.Namespace},
		"label key":        {key(a.Labels, "pod-template-hash"), key(b.Labels, "pod-template-hash")},
		"label value":      {a.Labels["app"], b.Labels["app"]},
		"annotation value": {a.Annotations["prometheus.io/scrape"], b.Annotations["prometheus.io/scrape"]},
		"owner kind":       {a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind},
		"owner apiVersion": {a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion},
		"owner uid":        {string(a.OwnerReferences[0].UID), string(b.OwnerReferences[0].UID)},
		"node name":        {a.Spec.NodeName, b.Spec.NodeName},
		"image":            {a.Spec.Containers[0].Image, b.Spec.Containers[0].Image},
		"status image":     {a.Status.ContainerStatuses[0].Image, a.Spec.Containers[0].Image},
		"env value":        {a.Spec.Containers[0].Env[0].Value, b.Spec.Containers[0].Env[0].Value},
		"config map":       {a.Spec.Volumes[0].ConfigMap.Name, b.Spec.Volumes[0].ConfigMap.Name},
		"host IP":          {a.Status.HostIP, b.Status.HostIP},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("%s %q is not shared between the two pods", what, pair[0])
		}
	}
	if same(a.Name, b.Name) || same(string(a.UID), string(b.UID)) {
		t.Error("distinct strings were merged")
	}
	if same(a.Name, "p1") {
		t.Error("names are interned: they never repeat")
	}
}

func TestInternGenericTypeUsesMetadataAndExtraHook(t *testing.T) {
	in := lean.NewInterner(0, 0)
	hook := func(cm *corev1.ConfigMap, i func(string) string) {
		for k, v := range cm.Data {
			cm.Data[k] = i(v)
		}
	}
	tr := lean.Intern[*corev1.ConfigMap](in, hook)
	mk := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: fresh("ns")}, Data: map[string]string{"k": fresh("shared value")}}
	}
	a, _ := tr(mk("a"))
	b, _ := tr(mk("b"))
	if !same(a.Namespace, b.Namespace) || !same(a.Data["k"], b.Data["k"]) {
		t.Fatal("namespace or hooked data value not shared")
	}
}

func TestInternerLongStringsAreNotKeptAndMemoryIsBounded(t *testing.T) {
	in := lean.NewInterner(4, 8)
	long := strings.Repeat("x", 9)
	if got := in.Intern(long); !same(got, long) || in.Len() != 0 {
		t.Fatalf("a string over maxLen was interned (len %d)", in.Len())
	}
	first := in.Intern(fresh("s0"))
	for i := 1; i < 100; i++ {
		in.Intern(fmt.Sprintf("s%d", i))
		if n := in.Len(); n > 8 {
			t.Fatalf("interner holds %d strings, want at most 2*4", n)
		}
	}
	if same(in.Intern(fresh("s0")), first) {
		t.Fatal("a string not asked for in 100 turns is still remembered")
	}
	// A string asked for while in the old generation survives the turnover.
	kept := in.Intern(fresh("hot"))
	for i := 0; i < 50; i++ {
		in.Intern(fmt.Sprintf("t%d", i))
		if !same(in.Intern(fresh("hot")), kept) {
			t.Fatalf("a string asked for every turn was forgotten after %d others", i)
		}
	}
}

func TestChainAppliesInOrderAndStopsAtFirstError(t *testing.T) {
	var calls []string
	step := func(name string, err error) cache.TransformFunc[*corev1.Pod] {
		return func(p *corev1.Pod) (*corev1.Pod, error) {
			calls = append(calls, name)
			p.Labels = map[string]string{"last": name}
			return p, err
		}
	}
	out, err := lean.Chain(step("a", nil), nil, step("b", nil))(&corev1.Pod{})
	if err != nil || out.Labels["last"] != "b" || strings.Join(calls, ",") != "a,b" {
		t.Fatalf("calls %v, out %v, err %v", calls, out.Labels, err)
	}
	calls = nil
	boom := errors.New("boom")
	if _, err := lean.Chain(step("a", boom), step("b", nil))(&corev1.Pod{}); !errors.Is(err, boom) || len(calls) != 1 {
		t.Fatalf("calls %v, err %v: want a stop at the first error", calls, err)
	}
	if lean.Chain[*corev1.Pod](nil, nil) != nil {
		t.Fatal("a chain of nothing is not nil")
	}
}

func TestObjectTransformRejectsObjectsWithoutMetadata(t *testing.T) {
	_, err := lean.ObjectTransform(lean.Default())(&metav1.Status{})
	if err == nil || !strings.Contains(err.Error(), "*v1.Status") {
		t.Fatalf("err = %v, want one naming *v1.Status", err)
	}
	var _ runtime.Object = &metav1.Status{}
}

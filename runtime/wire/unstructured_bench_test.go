package wire

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// prodPod is Pod i as a production cluster serves it: a Deployment's Pod
// with labels, an annotation, an owner reference, an app container and a
// sidecar (env, ports, resources, probe, mounts), a projected token
// volume, a running status with conditions and container statuses, and
// the managedFields of the controller manager and of the kubelet, whose
// set names the Pod's IP.
func prodPod(i int) corev1.Pod {
	app := "svc-" + strconv.Itoa(i%200)
	rs := app + "-6b7c9d8f5"
	ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	at := metav1.Unix(1_790_000_000+int64(i%3600), 0)
	yes := true
	cpu, mem := resource.MustParse("100m"), resource.MustParse("128Mi")
	container := func(name, image string, port int32) corev1.Container {
		return corev1.Container{
			Name: name, Image: image,
			Env:   []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}, {Name: "LOG_LEVEL", Value: "info"}},
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
				Limits: corev1.ResourceList{corev1.ResourceMemory: mem}},
			VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}},
				PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent,
		}
	}
	containers := []corev1.Container{container("app", "registry.example.com/shop/"+app+":v1.24.3", 8080), container("proxy", "registry.example.com/mesh/proxy:v1.9.0", 15001)}
	var statuses []corev1.ContainerStatus
	for k, c := range containers {
		statuses = append(statuses, corev1.ContainerStatus{Name: c.Name, Ready: true, Started: &yes, Image: c.Image, ImageID: c.Image + "@sha256:0f3c",
			ContainerID: fmt.Sprintf("containerd://%016x%016x", i, k), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}})
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%06d", rs, i), GenerateName: rs + "-", Namespace: "team-" + strconv.Itoa(i%50),
			UID: types.UID(fmt.Sprintf("3f0c9a4e-5b1d-4c7e-9f2a-%012d", i)), ResourceVersion: strconv.Itoa(1_000_000 + i), CreationTimestamp: at,
			Labels:          map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop", "pod-template-hash": "6b7c9d8f5"},
			Annotations:     map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-01T10:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: "a71c2e0d-8f4b-4d3a-b6c1-5e9f0a2b3c4d", Controller: &yes, BlockOwnerDeletion: &yes}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"a71c2e0d-8f4b-4d3a-b6c1-5e9f0a2b3c4d\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{},"f:image":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{}},"k:{\"name\":\"proxy\"}":{".":{},"f:image":{},"f:name":{}}},"f:dnsPolicy":{},"f:restartPolicy":{}}}`)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"` + ip + `\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`)}},
			},
		},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}},
			Containers: containers, RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
			ServiceAccountName: "default", NodeName: "worker-" + strconv.Itoa(i%40), SchedulerName: "default-scheduler",
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "192.168.0." + strconv.Itoa(i%40), PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &at, QOSClass: corev1.PodQOSBurstable,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at}},
			ContainerStatuses: statuses,
		},
	}
}

// BenchmarkUnstructuredList decodes the JSON list of 10000 production
// Pods as unstructured objects with apimachinery's UnstructuredJSONScheme
// into an UnstructuredList (what the dynamic client does with the body)
// and through an unstructured ListWatch's ListItems, side by side. Besides
// time and allocations per list, it reports the heap each decoded object
// keeps alive (retained-B/obj): the heap in use after a GC with the
// objects of one decoding kept, less the heap before it.
func BenchmarkUnstructuredList(b *testing.B) {
	const n = 10000
	l := &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "2000000"}}
	for i := range n {
		l.Items = append(l.Items, prodPod(i))
	}
	body := mustJSON(b, l)
	l = nil
	apimachinery := func(b *testing.B) []unstructured.Unstructured {
		var list unstructured.UnstructuredList
		if _, _, err := unstructured.UnstructuredJSONScheme.Decode(body, nil, &list); err != nil || len(list.Items) != n {
			b.Fatal(err, len(list.Items))
		}
		return list.Items
	}
	lw := newUnstructured(b, body)
	wire := func(b *testing.B, keep []*unstructured.Unstructured) []*unstructured.Unstructured {
		count := 0
		if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(u *unstructured.Unstructured) error {
			count++
			if keep != nil {
				keep = append(keep, u)
			}
			return nil
		}); err != nil || count != n {
			b.Fatal(err, count)
		}
		return keep
	}
	b.Run("UnstructuredJSONScheme", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			apimachinery(b)
		}
		b.StopTimer()
		b.ReportMetric(retained(func() any { return apimachinery(b) })/n, "retained-B/obj")
	})
	b.Run("wire", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			wire(b, nil)
		}
		b.StopTimer()
		b.ReportMetric(retained(func() any { return wire(b, make([]*unstructured.Unstructured, 0, n)) })/n, "retained-B/obj")
	})
}

// retained returns how many bytes of heap what decode returns keeps alive.
func retained(decode func() any) float64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	kept := decode()
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	goruntime.KeepAlive(kept)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

package scenario

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
)

// DecodeTemplates is how many distinct managedFields layouts the decode
// fixture's Pods come from, as Pods of ~10 Deployments managed by a few
// different tools would.
const DecodeTemplates = 10

// decodeRV is the resourceVersion of every Pod in the decode fixture and of
// the list; churn events carry decodeRV+k, which has as many digits, so a
// churned object is exactly as large as the one it replaces.
const decodeRV = 1_000_000

// extraManagers are the optional field managers of the templates: template t
// has the first t%len entries besides kube-controller-manager and kubelet.
var extraManagers = []struct {
	manager string
	op      metav1.ManagedFieldsOperationType
	fields  string
}{
	{"kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}}}}`},
	{"istio-sidecar-injector", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:containers":{"k:{\"name\":\"proxy\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":15001,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}}}}`},
	{"argocd-controller", metav1.ManagedFieldsOperationApply, `{"f:metadata":{"f:labels":{"f:app.kubernetes.io/part-of":{}}}}`},
}

// kcmFields is what kube-controller-manager's ReplicaSet controller owns of
// a Pod it created from template t.
func kcmFields(t int) string {
	var b strings.Builder
	b.WriteString(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"a71c2e0d-8f4b-4d3a-b6c1-5e9f0a2b3c4d\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:args":{},"f:env":{".":{},`)
	// Templates differ in their environment variables.
	for e := 0; e <= t; e++ {
		fmt.Fprintf(&b, `"k:{\"name\":\"TEMPLATE_%d_SETTING_%d\"}":{".":{},"f:name":{},"f:value":{}},`, t, e)
	}
	b.WriteString(`"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"POD_NAME\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:periodSeconds":{},"f:successThreshold":{},"f:timeoutSeconds":{}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"kube-api-access\"}":{".":{},"f:name":{},"f:projected":{".":{},"f:defaultMode":{},"f:sources":{}}}}}}`)
	return b.String()
}

// kubeletFields is what the kubelet owns of Pod i's status; the Pod IP key
// makes it differ per Pod, as it does in a cluster.
func kubeletFields(podIP string) string {
	cond := func(typ string) string {
		return `"k:{\"type\":\"` + typ + `\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}`
	}
	return `{"f:status":{"f:conditions":{` + cond("ContainersReady") + `,` + cond("Initialized") + `,` + cond("PodReadyToStartContainers") + `,` + cond("Ready") +
		`},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"` + podIP + `\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
}

// DecodePod is fixture.Pod(i) with the managedFields an API server would
// hold for it: kube-controller-manager's and the kubelet's entries plus the
// extra managers of its template (i % DecodeTemplates).
func DecodePod(i int) corev1.Pod {
	p := fixture.Pod(i, strconv.Itoa(decodeRV))
	t := i % DecodeTemplates
	at := p.CreationTimestamp
	entry := func(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(fields), Subresource: sub}
	}
	p.ManagedFields = []metav1.ManagedFieldsEntry{
		entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "", kcmFields(t)),
		entry("kubelet", metav1.ManagedFieldsOperationUpdate, "status", kubeletFields(p.Status.PodIP)),
	}
	for _, m := range extraManagers[:t%(len(extraManagers)+1)] {
		p.ManagedFields = append(p.ManagedFields, entry(m.manager, m.op, "", m.fields))
	}
	return p
}

// WriteDecodeFixture writes n Pods (DecodePod(0..n-1)) to path as JSON, one
// Pod per line, exactly as an API server encodes them: the bytes every
// decode run serves, encoded once. It also writes their metadata as
// PartialObjectMetadata, what the server sends a metadata client, to
// metadataPath(path).
func WriteDecodeFixture(path string, n int) error {
	if err := writeLines(path, n, func(i int) any { p := DecodePod(i); return &p }); err != nil {
		return err
	}
	return writeLines(metadataPath(path), n, func(i int) any {
		p := DecodePod(i)
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: p.ObjectMeta,
		}
	})
}

// metadataPath is where WriteDecodeFixture puts the metadata of path's Pods.
func metadataPath(path string) string { return path + ".metadata" }

func writeLines(path string, n int, obj func(i int) any) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w) // one object per line
	for i := 0; i < n; i++ {
		if err := enc.Encode(obj(i)); err != nil {
			return fmt.Errorf("encode pod %d: %w", i, err)
		}
	}
	return w.Flush()
}

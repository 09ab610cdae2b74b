package jsondec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"
)

// widget is a custom resource's type as a CRD's generated Go types look:
// embedded TypeMeta, pointers, maps of structs and of Quantities, a
// free-form field, raw extensions, byte slices and an embedded struct
// whose fields are promoted next to a field it shadows.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec    `json:"spec"`
	Status            *widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	base     `json:",inline"`
	*Extra   `json:",inline"`
	Name     string                                    `json:"name"`
	Replicas *int32                                    `json:"replicas,omitempty"`
	Limits   map[corev1.ResourceName]resource.Quantity `json:"limits,omitempty"`
	Ports    map[string]widgetPort                     `json:"ports,omitempty"`
	Values   map[string]any                            `json:"values,omitempty"`
	Any      any                                       `json:"any,omitempty"`
	Raw      runtime.RawExtension                      `json:"raw,omitempty"`
	Data     []byte                                    `json:"data,omitempty"`
	Target   intstr.IntOrString                        `json:"target,omitempty"`
	Ratio    float64                                   `json:"ratio,omitempty"`
	Small    float32                                   `json:"small,omitempty"`
	Tiny     int8                                      `json:"tiny,omitempty"`
	Count    uint16                                    `json:"count,omitempty"`
	Flags    []bool                                    `json:"flags,omitempty"`
	Nested   [][]string                                `json:"nested,omitempty"`
	Since    *metav1.Time                              `json:"since,omitempty"`
	At       metav1.Time                               `json:"at,omitempty"`
	Fixed    [2]int                                    `json:"fixed,omitempty"`
	Legacy   *legacy                                   `json:"legacy,omitempty"`
	Skipped  string                                    `json:"-"`
	Dash     string                                    `json:"-,"` //nolint:staticcheck // a field named "-"
	NoTag    string
	hidden   string //nolint:unused // never decoded: unexported
}

// legacy has what is left to sigs.k8s.io/json: a ",string" field and
// fields promoted through an unexported embedded pointer.
type legacy struct {
	*inner
	Quoted int `json:"quoted,omitempty,string"`
}

type inner struct {
	Deep string `json:"deep"`
}

type base struct {
	Name  string `json:"name"` // shadowed by widgetSpec.Name
	Level int    `json:"level"`
}

// Extra is embedded through a pointer, allocated when one of its fields
// is decoded.
type Extra struct {
	Note string `json:"note"`
}

type widgetPort struct {
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

type widgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Ready      bool               `json:"ready"`
}

func (w *widget) DeepCopyObject() runtime.Object { panic("unused") }

// both decodes data into a fresh value of t with sigs.k8s.io/json and
// with a Decoder, and requires equal results or both failing.
func both(t *testing.T, d *Decoder, typ reflect.Type, data []byte, strs *Strings) (error, error) {
	t.Helper()
	want := reflect.New(typ).Interface()
	got := reflect.New(typ).Interface()
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts(data, want)
	gotErr := d.Decode(data, got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s\nsigs.k8s.io/json: %v\njsondec: %v", clip(data), wantErr, gotErr)
	}
	if wantErr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%s\ndecoded differently:\nsigs.k8s.io/json: %#v\njsondec:          %#v", clip(data), want, got)
	}
	// The same through DecodeValue, sharing strings with the
	// documents decoded before, as runtime/wire decodes list items.
	if n, err := Skip(data); err == nil && n == len(data) {
		shared := reflect.New(typ).Interface()
		_, err := d.DecodeValue(data, shared, strs)
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("%s\nsigs.k8s.io/json: %v\njsondec.DecodeValue: %v", clip(data), wantErr, err)
		}
		if wantErr == nil && !reflect.DeepEqual(want, shared) {
			t.Fatalf("%s\nDecodeValue decoded differently:\nsigs.k8s.io/json: %#v\njsondec:          %#v", clip(data), want, shared)
		}
	}
	return wantErr, gotErr
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// realPod is a Pod as a cluster stores it: owner references, a
// controller-manager and a kubelet managedFields entry, resources, probes,
// volumes, status with container states and times.
func realPod(i int) *corev1.Pod {
	ts := metav1.Date(2026, 11, 28, 10, 0, i%60, 0, time0())
	privileged := false
	grace := int64(30)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("web-7d9f-%05d", i), Namespace: "shop", UID: "0b7d-4c1e-9f",
			ResourceVersion: "12345", Generation: 1, CreationTimestamp: ts,
			Labels:      map[string]string{"app": "web", "pod-template-hash": "7d9f"},
			Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-28T10:00:00Z", "note": "ünïcode \u2028 \"quoted\" <tag>"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f", UID: "aa-bb",
				Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(fmt.Sprintf(`{"f:status":{"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.0.%d.%d\"}":{".":{},"f:ip":{}}}}}`, i/250, i%250))}},
			},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "registry.example/web:1.2.3", Args: []string{"--port=8080", "--verbose"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.1"), corev1.ResourceMemory: resource.MustParse("1e8")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
					PeriodSeconds: 5, SuccessThreshold: 1},
				LivenessProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}},
				SecurityContext: &corev1.SecurityContext{Privileged: &privileged, Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				VolumeMounts:    []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/web", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "web"}, DefaultMode: ptr(int32(0o644))}}}},
			TerminationGracePeriodSeconds: &grace, NodeName: "node-3",
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.0.%d.%d", i/250, i%250), StartTime: &ts,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, RestartCount: 2, Image: "registry.example/web:1.2.3",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts}}, Started: ptr(true)}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func realDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromInt32(1))}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: realPod(1).Spec},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: 3, ReadyReplicas: 3,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}},
	}
}

func realWidget() *widget {
	return &widget{
		TypeMeta:   metav1.TypeMeta{Kind: "Widget", APIVersion: "example.com/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}},
		Spec: widgetSpec{
			base: base{Level: 3}, Extra: &Extra{Note: "n"}, Name: "top", Replicas: ptr(int32(2)),
			Limits: map[corev1.ResourceName]resource.Quantity{"cpu": resource.MustParse("2")},
			Ports:  map[string]widgetPort{"http": {Port: 80, Protocol: "TCP"}},
			Values: map[string]any{"i": 1, "f": 1.5, "big": 1e300, "s": "x", "l": []any{1, "2", nil, true}, "m": map[string]any{"k": nil}},
			Any:    []any{map[string]any{}, []any{}},
			Raw:    runtime.RawExtension{Raw: []byte(`{"kind":"Thing","n":1}`)},
			Data:   []byte("binary\x00data\xff"), Target: intstr.FromInt32(7),
			Ratio: 0.25, Small: 1.5, Tiny: -8, Count: 65535, Flags: []bool{true, false}, Nested: [][]string{{"a"}, {}, nil},
			Since: ptr(metav1.Date(2026, 1, 2, 3, 4, 5, 0, time0())), Fixed: [2]int{1, 2}, Legacy: &legacy{Quoted: 5}, NoTag: "plain",
		},
		Status: &widgetStatus{Ready: true, Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ok", LastTransitionTime: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time0())}}},
	}
}

// TestDecodeAsSigsJSON decodes real objects and hand-written documents
// that exercise each rule with sigs.k8s.io/json and with a Decoder, and
// requires the same result (or both failing, where want says so).
func TestDecodeAsSigsJSON(t *testing.T) {
	podT, deployT, cmT, widgetT := reflect.TypeFor[corev1.Pod](), reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[corev1.ConfigMap](), reflect.TypeFor[widget]()
	decoders := map[reflect.Type]*Decoder{}
	for _, typ := range []reflect.Type{podT, deployT, cmT, widgetT} {
		decoders[typ] = New(typ)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"a": "1", "é": "\u00e9\n"}, BinaryData: map[string][]byte{"b": {0, 1, 2, 255}}, Immutable: ptr(true)}
	pod := mustJSON(t, realPod(7))
	cases := []struct {
		name    string
		typ     reflect.Type
		doc     string
		wantErr bool
	}{
		{name: "Pod with managedFields", typ: podT, doc: pod},
		{name: "Pod indented", typ: podT, doc: func() string { b, _ := json.MarshalIndent(realPod(8), "", "\t"); return string(b) }()},
		{name: "Deployment", typ: deployT, doc: mustJSON(t, realDeployment())},
		{name: "ConfigMap with binaryData", typ: cmT, doc: mustJSON(t, cm)},
		{name: "CRD-like widget", typ: widgetT, doc: mustJSON(t, realWidget())},
		{name: "empty object", typ: podT, doc: `{}`},
		{name: "null document", typ: podT, doc: ` null `},
		{name: "unknown fields ignored", typ: podT, doc: `{"foo":{"bar":[1,2,{"x":null}]},"metadata":{"name":"a","zzz":true},"spec":{"nope":"x"}}`},
		{name: "names are case-sensitive", typ: podT, doc: `{"Metadata":{"name":"a"},"metadata":{"Name":"b","namespace":"n"},"Spec":{"nodeName":"x"}}`},
		{name: "duplicate keys: last wins", typ: podT, doc: `{"metadata":{"name":"a","name":"b","labels":{"x":"1"},"labels":{"y":"2"}}}`},
		{name: "duplicate keys merge into slices and structs", typ: podT, doc: `{"spec":{"containers":[{"name":"a","image":"i"},{"name":"b"}],"containers":[{"name":"c"}],"containers":[{"args":["x"]},{"args":["y"]}]}}`},
		{name: "duplicate struct keys merge", typ: podT, doc: `{"metadata":{"name":"a"},"metadata":{"namespace":"b"}}`},
		{name: "null into value fields keeps them", typ: podT, doc: `{"metadata":{"name":"a","name":null,"generation":3,"generation":null},"spec":{"hostNetwork":true,"hostNetwork":null}}`},
		{name: "null into pointers, maps, slices", typ: podT, doc: `{"metadata":{"labels":{"a":"b"},"labels":null,"deletionTimestamp":null,"ownerReferences":null},"spec":{"containers":null,"terminationGracePeriodSeconds":null}}`},
		{name: "null into a map value and a Time", typ: podT, doc: `{"metadata":{"labels":{"a":null},"creationTimestamp":null},"status":{"startTime":null}}`},
		{name: "empty array is not nil", typ: podT, doc: `{"spec":{"containers":[],"volumes":[ ]}}`},
		{name: "escapes and unicode", typ: podT, doc: `{"metadata":{"name":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude00\ud800x\udc00\ud800\u0041","annotations":{"k\u0065y":"\u0000"}}}`},
		{name: "invalid UTF-8 becomes U+FFFD", typ: podT, doc: "{\"metadata\":{\"name\":\"a\xffb\xc3\",\"labels\":{\"\xe2\x82\":\"\xed\xa0\x80\"}}}"},
		{name: "escaped key matches", typ: podT, doc: `{"met\u0061data":{"n\u0061me":"x"}}`},
		{name: "quantities and int-or-string", typ: podT, doc: `{"spec":{"containers":[{"resources":{"limits":{"cpu":"1.5","memory":"1Gi","x":7}},"ports":[{"containerPort":80}],"readinessProbe":{"httpGet":{"port":8080}}}]}}`},
		{name: "free-form numbers keep ints", typ: widgetT, doc: `{"spec":{"values":{"a":1,"b":-0,"c":1.0,"d":1e3,"e":9223372036854775807,"f":9223372036854775808,"g":-9223372036854775808,"h":0.5,"i":12345678901234567890123},"any":[1,2.5,"s",true,null,{}]}}`},
		{name: "raw extension and bytes", typ: widgetT, doc: `{"spec":{"raw":{"a" : [1, 2]},"data":"aGVsbG8=","target":"50%"}}`},
		{name: "raw extension null", typ: widgetT, doc: `{"spec":{"raw":null,"data":null}}`},
		{name: "bytes from an array", typ: widgetT, doc: `{"spec":{"data":[1,2,255]}}`},
		{name: "embedded and promoted fields", typ: widgetT, doc: `{"kind":"W","apiVersion":"v","spec":{"name":"outer","level":4,"note":"promoted through a pointer"}}`},
		{name: "fixed array and quoted field fall back", typ: widgetT, doc: `{"spec":{"fixed":[5,6,7],"legacy":{"quoted":"12"},"NoTag":"t","Skipped":"s","-":"dash","hidden":"h"}}`},
		{name: "null allocates an embedded pointer", typ: widgetT, doc: `{"spec":{"note":null}}`},
		{name: "fixed array shorter", typ: widgetT, doc: `{"spec":{"fixed":[5,6],"fixed":[7]}}`},
		{name: "unexported embedded pointer", typ: widgetT, doc: `{"spec":{"legacy":{"deep":"x"}}}`, wantErr: true},
		{name: "quoted field not quoted", typ: widgetT, doc: `{"spec":{"legacy":{"quoted":12}}}`, wantErr: true},
		{name: "numbers into small types", typ: widgetT, doc: `{"spec":{"tiny":-128,"count":65535,"small":3.4e38,"ratio":-1.5e-300}}`},
		{name: "int8 overflow", typ: widgetT, doc: `{"spec":{"tiny":128}}`, wantErr: true},
		{name: "uint16 negative", typ: widgetT, doc: `{"spec":{"count":-1}}`, wantErr: true},
		{name: "float32 overflow", typ: widgetT, doc: `{"spec":{"small":1e39}}`, wantErr: true},
		{name: "fraction into int", typ: podT, doc: `{"metadata":{"generation":1.5}}`, wantErr: true},
		{name: "exponent into int", typ: podT, doc: `{"metadata":{"generation":1e2}}`, wantErr: true},
		{name: "string into int", typ: podT, doc: `{"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`, wantErr: true},
		{name: "number into string", typ: podT, doc: `{"metadata":{"name":5}}`, wantErr: true},
		{name: "array into struct", typ: podT, doc: `{"spec":[]}`, wantErr: true},
		{name: "object into slice", typ: podT, doc: `{"spec":{"containers":{}}}`, wantErr: true},
		{name: "bool into map", typ: podT, doc: `{"metadata":{"labels":true}}`, wantErr: true},
		{name: "bad base64", typ: cmT, doc: `{"binaryData":{"b":"!!"}}`, wantErr: true},
		{name: "bad quantity", typ: podT, doc: `{"spec":{"containers":[{"resources":{"limits":{"cpu":"lots"}}}]}}`, wantErr: true},
		{name: "bad time", typ: podT, doc: `{"metadata":{"creationTimestamp":"yesterday"}}`, wantErr: true},
		{name: "trailing data", typ: podT, doc: `{} {}`, wantErr: true},
		{name: "trailing NUL", typ: podT, doc: "{}\x00", wantErr: true},
		{name: "trailing comma", typ: podT, doc: `{"metadata":{"name":"a",}}`, wantErr: true},
		{name: "missing colon", typ: podT, doc: `{"metadata":{"name" "a"}}`, wantErr: true},
		{name: "something else for a colon", typ: podT, doc: `{"metadata":{"name"x"a"}}`, wantErr: true},
		{name: "missing comma", typ: podT, doc: `{"metadata":{"name":"a" "namespace":"b"}}`, wantErr: true},
		{name: "mismatched brackets", typ: podT, doc: `{"metadata":{"name":"a"]}`, wantErr: true},
		{name: "trailing comma in an array", typ: podT, doc: `{"spec":{"containers":[{},]}}`, wantErr: true},
		{name: "bad literal in a free-form value", typ: widgetT, doc: `{"spec":{"any":[nul]}}`, wantErr: true},
		{name: "bad literal in a bool", typ: podT, doc: `{"spec":{"hostNetwork":fals}}`, wantErr: true},
		{name: "cut after a key", typ: podT, doc: `{"metadata":`, wantErr: true},
		{name: "cut in a number", typ: podT, doc: `{"metadata":{"generation":-`, wantErr: true},
		{name: "unterminated", typ: podT, doc: `{"metadata":{"name":"a"}`, wantErr: true},
		{name: "bad escape", typ: podT, doc: `{"metadata":{"name":"\x"}}`, wantErr: true},
		{name: "control character in string", typ: podT, doc: "{\"metadata\":{\"name\":\"a\tb\"}}", wantErr: true},
		{name: "bad literal", typ: podT, doc: `{"spec":{"hostNetwork":tru}}`, wantErr: true},
		{name: "leading zero", typ: podT, doc: `{"metadata":{"generation":01}}`, wantErr: true},
		{name: "syntax error after a type error", typ: podT, doc: `{"metadata":{"name":1},"spec":{`, wantErr: true},
		{name: "deep nesting within the limit", typ: widgetT, doc: `{"spec":{"any":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}}`},
		{name: "nesting past the limit", typ: widgetT, doc: `{"spec":{"any":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`, wantErr: true},
		{name: "nesting past the limit in an unknown field", typ: podT, doc: `{"x":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + `}`, wantErr: true},
		{name: "empty document", typ: podT, doc: ``, wantErr: true},
		{name: "times", typ: widgetT, doc: `{"spec":{"at":"2026-01-01T00:00:00+02:00","since":"2026-01-01T00:00:00\u005a"}}`},
		{name: "time null resets", typ: widgetT, doc: `{"spec":{"at":"2026-01-01T00:00:00Z","at":null,"since":"2026-01-01T00:00:00Z","since":null}}`},
		{name: "time not a string", typ: widgetT, doc: `{"spec":{"at":5}}`, wantErr: true},
		{name: "time not RFC 3339", typ: widgetT, doc: `{"spec":{"at":"2026-01-01"}}`, wantErr: true},
		{name: "int-or-string", typ: widgetT, doc: `{"spec":{"target":"x","target":-2147483648}}`},
		{name: "int-or-string null keeps the value, sets Int", typ: widgetT, doc: `{"spec":{"target":"x","target":null}}`},
		{name: "int-or-string out of range", typ: widgetT, doc: `{"spec":{"target":2147483648}}`, wantErr: true},
		{name: "int-or-string fraction", typ: widgetT, doc: `{"spec":{"target":1.5}}`, wantErr: true},
		{name: "int-or-string bool", typ: widgetT, doc: `{"spec":{"target":true}}`, wantErr: true},
	}
	strs := NewStrings(1 << 10)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantErr, gotErr := both(t, decoders[tc.typ], tc.typ, []byte(tc.doc), strs)
			if tc.wantErr != (wantErr != nil) {
				t.Fatalf("sigs.k8s.io/json: err %v, the case expects an error: %v", wantErr, tc.wantErr)
			}
			if gotErr != nil {
				t.Logf("error: %v (sigs.k8s.io/json: %v)", gotErr, wantErr)
			}
		})
	}
}

// TestPlanDecodesAPITypesItself requires the built-in types to be decoded
// without sigs.k8s.io/json, and the widget to leave to it only what this
// package does not handle.
func TestPlanDecodesAPITypesItself(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[corev1.Pod](), reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[corev1.ConfigMap]()} {
		if fb := New(typ).fallbacks; len(fb) != 0 {
			t.Errorf("%v: left to sigs.k8s.io/json: %v", typ, fb)
		}
	}
	want := []reflect.Type{reflect.TypeFor[[2]int](), reflect.TypeFor[legacy]()}
	if fb := New(reflect.TypeFor[widget]()).fallbacks; !reflect.DeepEqual(fb, want) {
		t.Errorf("widget: left to sigs.k8s.io/json: %v, want %v", fb, want)
	}
}

// TestTypeErrorNamesTheField requires a type mismatch to name the path of
// the field at fault.
func TestTypeErrorNamesTheField(t *testing.T) {
	d := New(reflect.TypeFor[corev1.Pod]())
	cases := []struct{ doc, want string }{
		{`{"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`, "Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"},
		{`{"metadata":{"labels":{"app":1}}}`, "Go struct field ObjectMeta.metadata.labels.app of type string"},
		{`{"spec":{"containers":[{"resources":{"limits":{"cpu":"lots"}}}]}}`, "ResourceRequirements.spec.containers.resources.limits.cpu"},
	}
	for _, tc := range cases {
		err := d.Decode([]byte(tc.doc), &corev1.Pod{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one naming %q", tc.doc, err, tc.want)
		}
	}
}

// FuzzJSONDecode decodes arbitrary bytes into a Pod with sigs.k8s.io/json
// and with a Decoder and requires equal results or both failing.
func FuzzJSONDecode(f *testing.F) {
	for i := range 3 {
		f.Add([]byte(mustJSON(f, realPod(i))))
	}
	f.Add([]byte(`{"metadata":{"name":"a","name":null,"labels":{"x":"1"},"labels":{"y":"\u00e9"}},"spec":{"containers":[{"name":"a"}],"containers":[]}}`))
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"1m"},"containers":[{"resources":{"limits":{"x":"1Ki"}}}]},"status":{"startTime":null}}`))
	f.Add([]byte(`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"time":"2026-01-01T00:00:00Z"}]}}`))
	d := New(reflect.TypeFor[corev1.Pod]())
	typ := reflect.TypeFor[corev1.Pod]()
	f.Fuzz(func(t *testing.T, data []byte) {
		both(t, d, typ, data, NewStrings(16))
	})
}

func time0() *time.Location { return time.UTC }

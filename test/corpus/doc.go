// Package corpus holds the corpus test of informer-gen: it generates informers
// and listers for every k8s.io/api group-version that carries +genclient and
// builds and vets the output against k8s.io/client-go/kubernetes; and the
// same for public CRD API modules (sigs.k8s.io/gateway-api, whose v1alpha2
// types are definitions of v1's, the external-snapshotter client, istio.io
// client-go) against each module's own client-gen clientset.
// Besides, examples/crd's generated clientset, fake and apply configurations
// have the exported API upstream's gen_client gives them (go/types), and its
// listers and informers every name upstream's have. And code-generator
// v0.37.2's client-gen and applyconfiguration-gen, run on the group-versions
// of gateway-api, kyverno and kueue (pinned versions, fetched with go mod
// download), write the same files with the same code as informer-gen's
// clientset and apply configurations, comments and import names aside.
// The deepcopy functions informer-gen writes for k8s.io/api and meta/v1 are
// deepcopy-gen's byte for byte, and, generated into a copy of those
// packages, give for every type filled at random what the shipped ones give,
// sharing no memory with the original (deepcopy_fuzz_test.go).
//
// It is a separate module so that the main module never depends on client-go.
package corpus

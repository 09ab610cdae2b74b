// Package corpus holds the corpus test of informer-gen: it generates informers
// and listers for every k8s.io/api group-version that carries +genclient and
// builds and vets the output against k8s.io/client-go/kubernetes.
//
// It is a separate module so that the main module never depends on client-go.
package corpus

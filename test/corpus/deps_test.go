package corpus

// The generated code this module's tests build imports these; importing
// them here keeps them (at the pinned versions) in go.mod through go mod tidy.
import (
	_ "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	_ "istio.io/client-go/pkg/clientset/versioned"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/client-go/kubernetes"
	_ "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
)

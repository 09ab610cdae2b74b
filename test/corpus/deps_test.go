package corpus

// The generated code this module's tests build imports these; importing
// them here keeps them (at v0.37.2) in go.mod through go mod tidy.
import (
	_ "k8s.io/api/core/v1"
	_ "k8s.io/client-go/kubernetes"
)

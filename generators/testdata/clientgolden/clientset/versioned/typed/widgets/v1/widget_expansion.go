package v1

// WidgetExpansion is hand-written: client-gen, and informer-gen, leave it
// out of generated_expansion.go.
type WidgetExpansion interface{}

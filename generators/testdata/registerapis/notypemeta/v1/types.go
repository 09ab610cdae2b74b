package v1

// Thing has no TypeMeta.
type Thing struct {
	Name string `json:"name"`
}

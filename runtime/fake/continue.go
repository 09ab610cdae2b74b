package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// continueToken is what a paginated list's continue token encodes: the
// resourceVersion of the list's snapshot and the last key returned.
type continueToken struct {
	RV    uint64 `json:"rv"`
	Start string `json:"start"`
}

func encodeContinue(rv uint64, lastKey string) string {
	b, _ := json.Marshal(continueToken{RV: rv, Start: lastKey})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil || t.RV == 0 {
		return t, apierrors.NewBadRequest(fmt.Sprintf("continue key is not valid: %q", s))
	}
	return t, nil
}

package cache

import "github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"

// ErrVeryShortWatch is wrapped by the error a reflector reports when a watch
// closed within a second without delivering anything: usually a server or
// proxy problem, so the reflector backs off and relists.
var ErrVeryShortWatch = reflector.ErrVeryShortWatch

// ErrWrongType is wrapped by the error reported for a watch event whose
// object is not of the informer's type; the event is dropped.
var ErrWrongType = reflector.ErrWrongType

package controller

// HandlerName names a Watch's informer handler after its controller, in the
// informer's logs and handler metrics (cache.HandlerName).
func (a *adapter[T]) HandlerName() string { return "controller/" + a.c.name }

package cache

// ResourceEventHandlerFuncs adapts up to three functions with client-go's
// one-argument shapes to a ResourceEventHandler, so that handlers written
// for client-go (AddFunc: c.enqueue) keep compiling once typed. A nil
// function ignores that kind of notification. The functions are called one
// at a time, in order, from the handler's goroutine (see
// ResourceEventHandler).
//
//   - AddFunc gets every added object; whether it came from the initial list
//     is dropped (use ResourceEventHandlerDetailedFuncs to see it).
//   - UpdateFunc gets changes and resyncs (then both carry the same
//     resourceVersion).
//   - DeleteFunc gets the deleted object. When the informer missed the
//     delete and learned of it on a relist (client-go's
//     DeletedFinalStateUnknown tombstone), DeleteFunc gets the typed last
//     state the informer knew, which may be stale; nothing wraps it, so no
//     type switch is needed. ResourceEventHandlerDetailedFuncs also reports
//     that case (finalStateUnknown).
type ResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerFuncs[T]) OnAdd(obj T, _ bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set, with the last known object for a
// delete the informer missed.
func (f ResourceEventHandlerFuncs[T]) OnDelete(obj T, _ bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

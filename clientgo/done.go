package clientgo

// doneChecker is client-go's DoneChecker with this package's name for what
// is waited for, over the channel of the runtime's checker of the same
// sync (closed exactly when the matching HasSynced is true), or over a
// channel that is never closed when the informer cannot run.
type doneChecker struct {
	name string
	ch   <-chan struct{}
}

// Name names what is waited for.
func (d *doneChecker) Name() string { return d.name }

// Done returns a channel that is closed once the informer (or handler) has
// synced; it stays open if that never happens.
func (d *doneChecker) Done() <-chan struct{} { return d.ch }

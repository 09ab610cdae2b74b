package informers

import "sync"

// latch is a cache.DoneChecker that is done once close is called.
type latch struct {
	name string
	once sync.Once
	ch   chan struct{}
}

func newLatch(name string) *latch { return &latch{name: name, ch: make(chan struct{})} }

// Name names what is waited for.
func (l *latch) Name() string { return l.name }

// Done returns a channel closed by close.
func (l *latch) Done() <-chan struct{} { return l.ch }

// close marks the latch done; later calls do nothing.
func (l *latch) close() { l.once.Do(func() { close(l.ch) }) }

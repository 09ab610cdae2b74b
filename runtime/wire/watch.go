package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
)

// streamWatcher is a watch.Interface over a response body: its goroutine
// decodes events with next and sends them on result until the body ends,
// a decoding error (sent as a final Error event), or Stop. Up to
// resultBuffer decoded events wait in result for the consumer, so that
// decoding goes on while the consumer is not yet running; events still
// waiting when Stop is called are dropped.
type streamWatcher struct {
	result chan watch.Event
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	body   io.Closer
}

// resultBuffer is how many decoded events may wait for the consumer of a
// watch. While events arrive faster than they are decoded (a watch-list's
// initial events), a decoder that handed each one over directly would
// wait, for every event, until the consumer's goroutine was scheduled to
// take it. It also bounds the objects decoded ahead of a consumer that
// falls behind.
const resultBuffer = 32

func newStreamWatcher(ctx context.Context, next func() (watch.Event, error), body io.Closer, what string) *streamWatcher {
	w := &streamWatcher{result: make(chan watch.Event, resultBuffer), stop: make(chan struct{}), done: make(chan struct{}), body: body}
	go w.run(ctx, next, what)
	return w
}

// ResultChan returns the events; it is closed when the stream ends or after
// Stop.
func (w *streamWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop closes the body and returns once the decoding goroutine has ended
// and the events it left waiting were dropped: the result channel is then
// closed and empty. It may be called more than once and from any
// goroutine.
func (w *streamWatcher) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.body.Close() //nolint:errcheck // nothing to do about it
	})
	<-w.done
	for range w.result { //nolint:revive // dropping what waits
	}
}

func (w *streamWatcher) run(ctx context.Context, next func() (watch.Event, error), what string) {
	defer close(w.done)
	defer close(w.result)
	for {
		ev, err := next()
		if err != nil {
			select {
			case <-w.stop:
				return
			default:
			}
			if ctx.Err() != nil || endOfStream(err) {
				return
			}
			ev = watch.Event{Type: watch.Error, Object: decodingError(what, err)}
			select {
			case w.result <- ev:
			case <-w.stop:
			}
			return
		}
		select {
		case w.result <- ev:
		case <-w.stop:
			return
		}
	}
}

// endOfStream reports whether err ends a watch stream normally, as
// apimachinery's stream watcher tells them apart: the body ended (at or
// inside an event, as when the server's timeout closes the connection),
// the connection was closed, reset or timed out, or the server sent
// GOAWAY. The reflector then watches again from its last resourceVersion;
// an Error event would make it relist.
func endOfStream(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, http.ErrBodyReadAfterClose) || errors.Is(err, context.Canceled) ||
		utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err)
}

// decodingError is the Status of the Error event that ends a stream that
// cannot be decoded: the one client-go's stream watcher sends (a 500 of
// reason InternalError, whose cause is of type ClientWatchDecoding), its
// message naming the resource.
func decodingError(what string, err error) *metav1.Status {
	msg := fmt.Sprintf("unable to decode an event from the watch stream of %s: %v", what, err)
	st := apierrors.NewGenericServerResponse(http.StatusInternalServerError, http.MethodGet, schema.GroupResource{}, "", msg, 0, true).ErrStatus
	if st.Details == nil {
		st.Details = &metav1.StatusDetails{}
	}
	st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{Type: "ClientWatchDecoding", Message: msg})
	return &st
}

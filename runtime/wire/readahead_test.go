package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// recordingPipe is a body whose bytes a test writes, recording the size of
// every read the read-ahead asks for.
type recordingPipe struct {
	*io.PipeReader
	mu    sync.Mutex
	sizes []int
}

func (p *recordingPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	p.sizes = append(p.sizes, len(b))
	p.mu.Unlock()
	return p.PipeReader.Read(b)
}

func (p *recordingPipe) lastSize() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.sizes) == 0 {
		return 0
	}
	return p.sizes[len(p.sizes)-1]
}

func newRecordingPipe() (*recordingPipe, *io.PipeWriter) {
	r, w := io.Pipe()
	return &recordingPipe{PipeReader: r}, w
}

// eventually polls cond until it holds or a few seconds passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWatchReadAheadDeliversWhatArrived: a watch stream's event reaches the
// decoder as soon as its bytes are read, not once a list's minimum read
// has arrived.
func TestWatchReadAheadDeliversWhatArrived(t *testing.T) {
	src, w := newRecordingPipe()
	r := newWatchReadAhead(src)
	defer r.Close()
	go w.Write([]byte(`{"type":"ADDED"}`)) //nolint:errcheck // the reader reads it
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := r.Read(b)
		got <- b[:n]
	}()
	select {
	case b := <-got:
		if string(b) != `{"type":"ADDED"}` {
			t.Fatalf("read %q", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an event of 16 bytes was not delivered while the stream waits for more")
	}
}

// TestReadAheadKeepsOrder: whatever the sizes of the writes and of the
// decoder's reads, and pauses in either, the bytes come out as written,
// then the error that ended the body.
func TestReadAheadKeepsOrder(t *testing.T) {
	for _, watch := range []bool{false, true} {
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 7))
			want := make([]byte, 1+rng.IntN(3<<20))
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			src, w := newRecordingPipe()
			start := newReadAhead
			if watch {
				start = newWatchReadAhead
			}
			r := start(src)
			go func() {
				rest := want
				for len(rest) > 0 {
					n := min(len(rest), 1+rng.IntN(300<<10))
					if rng.IntN(8) == 0 {
						n = min(len(rest), 1+rng.IntN(100))
						time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
					}
					w.Write(rest[:n]) //nolint:errcheck // the reader reads all
					rest = rest[n:]
				}
				w.Close()
			}()
			var got bytes.Buffer
			buf := make([]byte, 70<<10)
			var err error
			for err == nil {
				var n int
				n, err = r.Read(buf[:1+seed*997%uint64(len(buf))])
				got.Write(buf[:n])
			}
			if !errors.Is(err, io.EOF) {
				t.Fatalf("watch=%v seed %d: ended with %v, want io.EOF", watch, seed, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("watch=%v seed %d: read %d bytes, not the %d written in order", watch, seed, got.Len(), len(want))
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if n := int(r.allocated.Load()); n < 0 || n > r.chunks {
				t.Fatalf("watch=%v seed %d: %d chunks counted", watch, seed, n)
			}
		}
	}
}

// TestWatchReadAheadLetsGoOfABurst: while a watch stream's events arrive
// faster than they are decoded, reads fill chunks, up to watchChunks of
// them, and the chunks are kept while the decoder keeps reading; once the
// decoder has waited idleAfter for the next event, only the chunk of the
// read that waits is kept. The next burst is read ahead as far again.
func TestWatchReadAheadLetsGoOfABurst(t *testing.T) {
	src, w := newRecordingPipe()
	const idleAfter = 300 * time.Millisecond
	r := startReadAhead(&readAhead{src: src, chunk: watchChunk, chunks: watchChunks, min: 1, idleAfter: idleAfter})
	defer r.Close()
	burst := bytes.Repeat([]byte("0123456789abcdef"), 2*watchChunks*watchChunk/16)
	for round := range 2 {
		go w.Write(burst) //nolint:errcheck // the reader reads it
		// The decoder is behind: the read-ahead fills what it may.
		eventually(t, "the read-ahead holds every chunk it may", func() bool {
			return int(r.allocated.Load()) == watchChunks
		})
		if s := src.lastSize(); s != watchChunk {
			t.Fatalf("round %d: a read asked for %d bytes, want %d", round, s, watchChunk)
		}
		got := make([]byte, len(burst))
		start := time.Now()
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, burst) {
			t.Fatalf("round %d: the burst read back wrong: %v", round, err)
		}
		// Caught up: the decoder waits for the next event.
		next := make(chan error, 1)
		go func() {
			_, err := r.Read(make([]byte, 1))
			next <- err
		}()
		if n := int(r.allocated.Load()); n != watchChunks && time.Since(start) < idleAfter/2 {
			t.Fatalf("round %d: %d chunks kept right after the burst, want all %d until the stream idles", round, n, watchChunks)
		}
		eventually(t, "the idle read-ahead lets the free chunks go", func() bool {
			return r.allocated.Load() == 1
		})
		go w.Write([]byte{'x'}) //nolint:errcheck // the reader reads it
		if err := <-next; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWatchListLetsGoOfItsReadAheadAtTheEndBookmark: a watch-list's
// read-ahead, which filled chunks while its initial events were decoded,
// lets the free ones go as the initial-events-end bookmark is decoded,
// without waiting for the stream to idle.
func TestWatchListLetsGoOfItsReadAheadAtTheEndBookmark(t *testing.T) {
	c := newCodecs(t)
	const n = 100 // of about 8 KiB each: far more than the consumer's buffer holds
	var events []event
	for i := range n {
		p := testPod(i, strconv.Itoa(10+i))
		p.Annotations = map[string]string{"pad": strings.Repeat("p", 8<<10)}
		events = append(events, event{"ADDED", &p})
	}
	bookmark := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "200", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	initial := c.encodeWatch(t, encJSON, events)
	end := c.encodeWatch(t, encJSON, []event{{"BOOKMARK", bookmark}})
	pr, pw := io.Pipe()
	defer pw.Close()
	fetch := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) { return pr, "", nil }
	yes := true
	wi, err := newPods(t, fetch).Watch(context.Background(), metav1.ListOptions{SendInitialEvents: &yes})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	ahead := wi.(*streamWatcher).body.(*readAhead)
	// Nobody takes events yet: once the writes returned, what the decoder
	// could not hand over fills the read-ahead's chunks.
	if _, err := pw.Write(initial); err != nil {
		t.Fatal(err)
	}
	if a := ahead.allocated.Load(); a < 4 {
		t.Fatalf("%d chunks read ahead of a stalled consumer, want several", a)
	}
	if _, err := pw.Write(end); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= n; i++ {
		ev := <-wi.ResultChan()
		if i < n {
			continue
		}
		if ev.Type != watch.Bookmark {
			t.Fatalf("event %d is %s, want the bookmark", i, ev.Type)
		}
	}
	// The bookmark was handed over after the free chunks went: left is
	// the chunk of the read that waits.
	if a := ahead.allocated.Load(); a != 1 {
		t.Fatalf("%d chunks kept after the initial events ended, want 1", a)
	}
}

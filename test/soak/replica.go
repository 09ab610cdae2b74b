package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/typedinformer/typedinformer/test/soak/proxy"
)

// replica is one foo-controller process behind its own proxy. The
// supervisor restarts it whenever it exits (killed, or stopped by a lost
// leader election) until the replica is shut down.
type replica struct {
	name    string
	group   string
	bin     string
	args    []string
	logPath string
	// Trace is the replica's trace file, kept across restarts.
	trace   string
	port    int
	proxy   *proxy.Proxy
	restart time.Duration

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	stopped  bool // SIGSTOPped, not yet continued
	shutdown bool
	starts   int
	// exits are the times the process ended, for the trace analysis: a
	// reconcile started and never ended ended by then at the latest.
	exits []time.Time
	// pauses are SIGSTOP..SIGCONT intervals.
	pauses []interval

	wg sync.WaitGroup
}

// interval is [From, To] in Unix nanoseconds.
type interval struct{ From, To int64 }

// start runs the process and keeps it running until stop.
func (r *replica) start() error {
	if err := r.spawn(); err != nil {
		return err
	}
	r.wg.Go(r.supervise)
	return nil
}

func (r *replica) spawn() error {
	f, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "=== %s: starting %s %q\n", time.Now().Format(time.RFC3339Nano), r.bin, r.args)
	cmd := exec.Command(r.bin, r.args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("replica %s: %w", r.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		r.mu.Lock()
		r.exits = append(r.exits, time.Now())
		r.mu.Unlock()
		close(exited)
	}()
	r.mu.Lock()
	r.cmd, r.exited = cmd, exited
	r.starts++
	shutdown := r.shutdown
	r.mu.Unlock()
	if shutdown {
		// stop ran between the supervisor's check and this start: it
		// signalled the previous process, so this one is the
		// supervisor's to end.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return nil
}

func (r *replica) supervise() {
	for {
		r.mu.Lock()
		exited := r.exited
		r.mu.Unlock()
		<-exited
		time.Sleep(r.restart)
		r.mu.Lock()
		shutdown := r.shutdown
		r.mu.Unlock()
		if shutdown {
			return
		}
		if err := r.spawn(); err != nil {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
			return
		}
	}
}

// signal sends sig to the current process, if it runs.
func (r *replica) signal(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	select {
	case <-r.exited:
		return
	default:
	}
	now := time.Now().UnixNano()
	switch sig {
	case syscall.SIGSTOP:
		if r.stopped {
			return
		}
		r.stopped = true
		r.pauses = append(r.pauses, interval{From: now})
	case syscall.SIGCONT:
		if !r.stopped {
			return
		}
		r.stopped = false
		r.pauses[len(r.pauses)-1].To = now
	}
	_ = syscall.Kill(r.cmd.Process.Pid, sig)
}

// kill SIGKILLs the current process; the supervisor starts a new one.
func (r *replica) kill() { r.signal(syscall.SIGKILL) }

// stop shuts the replica down for good (SIGTERM, then SIGKILL after 10s)
// and waits for the supervisor.
func (r *replica) stop() {
	r.signal(syscall.SIGCONT)
	r.mu.Lock()
	r.shutdown = true
	cmd, exited := r.cmd, r.exited
	r.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	r.wg.Wait()
}

// incarnation counts the processes started so far: a new one has a new
// baseline for the leak checks.
func (r *replica) incarnation() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts
}

// getJSON fetches one of the replica's debug endpoints into out.
func (r *replica) getJSON(ctx context.Context, path string, out any) error {
	return r.call(ctx, http.MethodGet, path, 5*time.Second, out)
}

// ready reports whether the replica's caches are synced.
func (r *replica) ready(ctx context.Context) error {
	return r.call(ctx, http.MethodGet, "/readyz", 2*time.Second, nil)
}

// post sends an empty POST to one of the replica's debug endpoints.
func (r *replica) post(ctx context.Context, path string) error {
	return r.call(ctx, http.MethodPost, path, 5*time.Second, nil)
}

// call sends one request to the replica's debug server within timeout and,
// when out is not nil, stores the answer in it: the raw body for a
// *[]byte, else the body decoded as JSON. Any status but 200
// is an error naming the replica, the path and the start of the body.
func (r *replica) call(ctx context.Context, method, path string, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:"+strconv.Itoa(r.port)+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("replica %s %s: %w", r.name, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("replica %s %s: %s: %s", r.name, path, resp.Status, strings.TrimSpace(string(body)))
	}
	switch out := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*out, err = io.ReadAll(resp.Body)
		return err
	default:
		return json.NewDecoder(resp.Body).Decode(out)
	}
}

// watchState reads the replica's goroutine dump and counts its informers'
// reflectors and those of them holding an open watch. Until every
// reflector watches (some are in backoff, listing or dialling after a
// fault), the replica has fewer goroutines than in its steady state.
func (r *replica) watchState(ctx context.Context) (watching, reflectors int, err error) {
	var dump []byte
	if err := r.call(ctx, http.MethodGet, "/debug/pprof/goroutine?debug=1", 10*time.Second, &dump); err != nil {
		return 0, 0, err
	}
	watching, reflectors = countReflectors(string(dump))
	return watching, reflectors, nil
}

// countReflectors counts, in a goroutine dump of debug level 1 (groups of
// identical stacks, each headed "N @ ..."), the goroutines running a
// reflector and those of them inside its watch.
func countReflectors(dump string) (watching, reflectors int) {
	if rest, ok := strings.CutPrefix(dump, "goroutine profile:"); ok {
		_, dump, _ = strings.Cut(rest, "\n") // the first group follows at once
	}
	for _, group := range strings.Split(dump, "\n\n") {
		head, stack, _ := strings.Cut(group, "\n")
		n, _, ok := strings.Cut(head, " @ ")
		count, err := strconv.Atoi(n)
		if !ok || err != nil || !strings.Contains(stack, "/reflector.(*Reflector[...]).Run") {
			continue
		}
		reflectors += count
		if strings.Contains(stack, "/reflector.(*Reflector[...]).handleWatch") {
			watching += count
		}
	}
	return watching, reflectors
}

// saveProfiles writes the replica's goroutine dump and heap profile (text
// forms, from /debug/pprof/) to dir/name.goroutines.txt and
// dir/name.heap.txt and returns the first path.
func (r *replica) saveProfiles(ctx context.Context, dir, name string) (string, error) {
	var first string
	for _, p := range []struct{ path, suffix string }{
		{"/debug/pprof/goroutine?debug=1", ".goroutines.txt"},
		{"/debug/pprof/heap?debug=1", ".heap.txt"},
	} {
		var body []byte
		if err := r.call(ctx, http.MethodGet, p.path, 10*time.Second, &body); err != nil {
			return "", err
		}
		file := filepath.Join(dir, name+p.suffix)
		if err := os.WriteFile(file, body, 0o644); err != nil {
			return "", err
		}
		if first == "" {
			first = file
		}
	}
	return first, nil
}

func (r *replica) tracePath(dir string) string { return filepath.Join(dir, r.name+".trace.jsonl") }

// pid returns the current process's id, 0 when none runs.
func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil || r.cmd.Process == nil {
		return 0
	}
	select {
	case <-r.exited:
		return 0
	default:
	}
	return r.cmd.Process.Pid
}

// apiConns counts the replica's open TCP sockets to its proxy (its
// connections to the API server), in any state: a socket in CLOSE_WAIT
// that the process never closes is a leak too. The sockets are the
// process's fds (/proc/<pid>/fd) matched by inode against the connection
// tables of its network namespace.
func (r *replica) apiConns() (int, error) {
	pid := r.pid()
	if pid == 0 {
		return 0, fmt.Errorf("replica %s: not running", r.name)
	}
	inodes, err := socketInodes(pid)
	if err != nil {
		return 0, fmt.Errorf("replica %s: %w", r.name, err)
	}
	_, portStr, err := net.SplitHostPort(r.proxy.Addr())
	if err != nil {
		return 0, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return 0, fmt.Errorf("replica %s: %w", r.name, err)
		}
		n += countConns(string(b), inodes, port)
	}
	return n, nil
}

// socketInodes returns the inodes of the sockets among pid's open fds.
func socketInodes(pid int) (map[string]bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			out[strings.TrimSuffix(ino, "]")] = true
		}
	}
	return out, nil
}

// countConns counts the rows of a /proc/net/tcp{,6} table whose remote
// port is port and whose inode is in inodes.
func countConns(table string, inodes map[string]bool, port uint64) int {
	n := 0
	for i, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when
		// retrnsmt uid timeout inode ...
		if i == 0 || len(f) < 10 {
			continue
		}
		_, remPort, ok := strings.Cut(f[2], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(remPort, 16, 16); err == nil && p == port && inodes[f[9]] {
			n++
		}
	}
	return n
}

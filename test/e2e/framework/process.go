package framework

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// process is one child binary (etcd or kube-apiserver) with its output in a
// log file. Its methods may be called from several goroutines.
type process struct {
	name    string
	logPath string

	mu      sync.Mutex
	cmd     *exec.Cmd
	logFile *os.File
	done    chan struct{} // closed when the process has exited
	exitErr error         // valid once done is closed
}

// startProcess runs bin with args, appending its stdout and stderr to
// logPath. The child gets its own process group and SIGKILL when the test
// process dies.
func startProcess(name, bin, logPath string, args []string) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s: opening log: %w", name, err)
	}
	fmt.Fprintf(f, "=== %s: starting %s %q\n", time.Now().Format(time.RFC3339Nano), bin, args)
	cmd := exec.Command(bin, args...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", name, bin, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, logFile: f, done: make(chan struct{})}
	writePIDFile(name, cmd.Process.Pid)
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		removePIDFile(name, cmd.Process.Pid)
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.exitErr == nil {
			return true, fmt.Errorf("%s exited", p.name)
		}
		return true, fmt.Errorf("%s exited: %w", p.name, p.exitErr)
	default:
		return false, nil
	}
}

// stop sends SIGTERM, waits up to grace for the exit, then SIGKILLs the
// process group. It returns once the process has exited. Safe to repeat.
func (p *process) stop(grace time.Duration) {
	if done, _ := p.exited(); done {
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		// The process group may hold helpers the child started.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	case <-t.C:
	}
	fmt.Fprintf(os.Stderr, "framework: %s (pid %d) did not exit %v after SIGTERM; killing it\n", p.name, pid, grace)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-p.done
}

// kill SIGKILLs the process group at once, with no chance to shut down
// cleanly, and returns once the process has exited. Safe to repeat.
func (p *process) kill() {
	if done, _ := p.exited(); done {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// tail returns the last n bytes of the process log.
func (p *process) tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// PIDDirEnv names the directory where each child's pid file is kept while it
// runs (optional). hack/e2e.sh sets it and checks it is empty afterwards.
const PIDDirEnv = "E2E_PID_DIR"

func pidFile(name string, pid int) string {
	dir := os.Getenv(PIDDirEnv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name+"."+strconv.Itoa(pid)+".pid")
}

func writePIDFile(name string, pid int) {
	if f := pidFile(name, pid); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(pid)+"\n"), 0o600)
	}
}

func removePIDFile(name string, pid int) {
	if f := pidFile(name, pid); f != "" {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "framework: %v\n", err)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// procResult is what the parent observes of one child process.
type procResult struct {
	Stdout []byte
	Wall   time.Duration
	// MaxRSS is the child's peak resident set size in bytes (rusage
	// ru_maxrss, which Linux reports in KiB).
	MaxRSS int64
}

// runProc runs name with args in dir, waits for it, and returns its stdout,
// wall time (from start to exit, measured here) and peak RSS. stderr goes to
// the parent's stderr only when the command fails.
func runProc(ctx context.Context, dir string, timeout time.Duration, name string, args ...string) (procResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := procResult{Stdout: stdout.Bytes(), Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.MaxRSS = ru.Maxrss * 1024
		}
	}
	if err != nil {
		tail := stderr.String()
		if len(tail) > 4000 {
			tail = "..." + tail[len(tail)-4000:]
		}
		return res, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail)
	}
	return res, nil
}

// childResult is a scenario's JSON result plus the child's peak RSS.
type childResult[R any] struct {
	Result R
	MaxRSS int64
}

// runScenario runs this executable as `child <args>` and decodes its JSON.
func runScenario[R any](ctx context.Context, args ...string) (childResult[R], error) {
	self, err := os.Executable()
	if err != nil {
		return childResult[R]{}, fmt.Errorf("locate own executable: %w", err)
	}
	p, err := runProc(ctx, "", 15*time.Minute, self, append([]string{"child"}, args...)...)
	if err != nil {
		return childResult[R]{}, err
	}
	var out childResult[R]
	out.MaxRSS = p.MaxRSS
	if err := json.Unmarshal(p.Stdout, &out.Result); err != nil {
		return out, fmt.Errorf("child %s: decode result %q: %w", strings.Join(args, " "), p.Stdout, err)
	}
	return out, nil
}

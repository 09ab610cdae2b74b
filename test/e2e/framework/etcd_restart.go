package framework

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Kill SIGKILLs etcd (an abrupt crash: no snapshot, no clean close of its
// WAL) and returns once it has exited. The data dir stays for Restart.
// Safe to repeat. Neither Kill nor Restart may run concurrently with Stop
// or with each other.
func (e *Etcd) Kill() { e.proc.kill() }

// Restart starts etcd again on the same data dir, ports and flags as the
// process it replaces (killed, or still running: it is stopped first), and
// waits until its /health reports true. The apiservers keep their etcd URL
// and reconnect on their own.
func (e *Etcd) Restart(ctx context.Context) error {
	old := e.proc
	old.kill()
	p, err := startProcess(old.name, old.cmd.Path, old.logPath, old.cmd.Args[1:])
	if err != nil {
		return err
	}
	e.proc = p
	return waitHealthy(ctx, p, 30*time.Second, func(ctx context.Context) error {
		var h struct {
			Health string `json:"health"`
		}
		if err := getJSON(ctx, http.DefaultClient, e.URL+"/health", &h); err != nil {
			return err
		}
		if h.Health != "true" {
			return fmt.Errorf("etcd /health: %q", h.Health)
		}
		return nil
	})
}

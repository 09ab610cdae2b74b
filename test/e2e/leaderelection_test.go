package e2e

import (
	"bufio"
	"context"
	"errors"
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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// Leader election timing for the replicas: short enough for a quick test,
// long enough that a loaded 2-core machine renews in time.
const (
	leLeaseDuration = 10 * time.Second
	leRenewDeadline = 7 * time.Second
	leRetryPeriod   = time.Second
	leLeaseName     = "foo-controller-e2e"
	// jitterFactor is client-go's leaderelection.JitterFactor: a candidate
	// retries every retryPeriod * [1, 1+jitterFactor].
	jitterFactor = 1.2
)

var (
	fooControllerOnce sync.Once
	fooControllerBin  string
	fooControllerErr  error
)

// buildFooController builds examples/crd's foo-controller once per run: the
// test runs the real binary, with its flags, signals and exit codes.
func buildFooController(t *testing.T) string {
	t.Helper()
	fooControllerOnce.Do(func() {
		root, err := framework.RepoRoot()
		if err != nil {
			fooControllerErr = err
			return
		}
		// The cluster's work dir goes away with the run.
		bin := filepath.Join(cluster.Dir, "foo-controller")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/foo-controller")
		cmd.Dir = filepath.Join(root, "examples", "crd")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			fooControllerErr = fmt.Errorf("building examples/crd/cmd/foo-controller: %w\n%s", err, out)
			return
		}
		fooControllerBin = bin
	})
	if fooControllerErr != nil {
		t.Fatal(fooControllerErr)
	}
	return fooControllerBin
}

// replica is one foo-controller process.
type replica struct {
	name    string
	cmd     *exec.Cmd
	addr    string // host:port of /metrics, /healthz, /readyz
	logPath string
	done    chan struct{}
	waitErr error
}

// startReplica runs the binary with the given kubeconfig and extra flags,
// serving its ops endpoints on a free port. The process is killed when t
// ends, and with the test process (Pdeathsig).
func startReplica(t *testing.T, bin, name, kubeconfig string, args ...string) *replica {
	t.Helper()
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	r := &replica{name: name, addr: addr, logPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(r.logPath)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--metrics-bind-address", addr, "-v=2"}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.waitErr = r.cmd.Wait()
		logFile.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if t.Failed() {
			data, _ := os.ReadFile(r.logPath)
			t.Logf("%s's log:\n%s", r.name, tail(string(data), 60))
		}
	})
	return r
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// exited reports whether the process has ended.
func (r *replica) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// get fetches path from the replica's ops server.
func (r *replica) get(path string) (int, string, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + r.addr + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// metric returns the sum of the samples of /metrics whose line starts
// with prefix (a name, or a name and the opening of its labels); found is
// false when none does.
func (r *replica) metric(prefix string) (sum float64, found bool, err error) {
	code, body, err := r.get("/metrics")
	if err != nil {
		return 0, false, err
	}
	if code != http.StatusOK {
		return 0, false, fmt.Errorf("%s /metrics: %d", r.name, code)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, false, fmt.Errorf("%s /metrics line %q: %w", r.name, line, err)
		}
		sum += v
		found = true
	}
	return sum, found, sc.Err()
}

// leading reports whether the replica's leader_election_master_status is 1.
func (r *replica) leading() (bool, error) {
	v, found, err := r.metric(`leader_election_master_status{name="` + leLeaseName + `"}`)
	if err != nil {
		return false, err
	}
	if !found {
		return false, fmt.Errorf("%s: no leader_election_master_status", r.name)
	}
	return v == 1, nil
}

// reconciles returns the replica's controller_runtime_reconcile_total.
func (r *replica) reconciles() (float64, error) {
	v, _, err := r.metric(`controller_runtime_reconcile_total{controller="foo"`)
	return v, err
}

// writeKubeconfig writes cfg (host, CA file, bearer token) as a kubeconfig.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	kc.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExampleControllerLeaderElection runs two replicas of examples/crd's
// controller binary against the real apiserver: both sync their caches and
// report ready, exactly one leads and reconciles; when the leader is
// killed (no release) the other takes over within the lease duration and
// reconciles new changes; on SIGTERM a leader exits 0 and releases the
// Lease, so that a waiting replica takes over without waiting it out.
// /metrics and /readyz are checked over HTTP, /readyz also before sync (a
// replica RBAC forbids to list reports the NotSyncedError text).
func TestExampleControllerLeaderElection(t *testing.T) {
	ensureExampleCRDs(t)
	bin := buildFooController(t)
	ctx := context.Background()
	c := admin(t)
	ns := testNamespaces(t, c, 1)[0]
	leArgs := []string{
		"--namespace", ns, "--workers", "2",
		"--leader-elect", "--leader-election-namespace", ns, "--leader-election-id", leLeaseName,
		"--leader-elect-lease-duration", leLeaseDuration.String(),
		"--leader-elect-renew-deadline", leRenewDeadline.String(),
		"--leader-elect-retry-period", leRetryPeriod.String(),
	}

	// A replica that may not list anything never syncs: /readyz says why.
	forbidden := startReplica(t, bin, "forbidden", writeKubeconfig(t, cluster.UnprivilegedConfig()), "--namespace", ns)
	if err := poll(ctx, 2*time.Minute, func() error {
		code, body, err := forbidden.get("/readyz")
		if err != nil {
			return err
		}
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "caches not synced") || !strings.Contains(body, "forbidden") {
			return fmt.Errorf("/readyz of an unsynced replica: %d %q", code, body)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if code, body, err := forbidden.get("/healthz"); err != nil || code != http.StatusOK {
		t.Fatalf("/healthz: %d %q %v", code, body, err)
	}

	a := startReplica(t, bin, "a", cluster.Kubeconfig, leArgs...)
	b := startReplica(t, bin, "b", cluster.Kubeconfig, leArgs...)
	for _, r := range []*replica{a, b} {
		if err := poll(ctx, 2*time.Minute, func() error {
			if r.exited() {
				return fmt.Errorf("%s exited: %v", r.name, r.waitErr)
			}
			code, body, err := r.get("/readyz")
			if err != nil {
				return err
			}
			if code != http.StatusOK {
				return fmt.Errorf("%s /readyz: %d %q", r.name, code, body)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	// Exactly one leads.
	var leader, follower *replica
	if err := poll(ctx, 2*time.Minute, func() error {
		la, err := a.leading()
		if err != nil {
			return err
		}
		lb, err := b.leading()
		if err != nil {
			return err
		}
		switch {
		case la && lb:
			t.Fatal("both replicas lead")
		case la:
			leader, follower = a, b
		case lb:
			leader, follower = b, a
		default:
			return errors.New("no replica leads yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	leaderID := leaseHolder(t, ns)
	t.Logf("%s leads as %q", leader.name, leaderID)

	// The leader reconciles a new Foo; the follower reconciles nothing.
	createFoo(t, ns, "one")
	waitConfigMap(t, ns, "one")
	if err := poll(ctx, time.Minute, func() error {
		n, err := leader.reconciles()
		if err != nil || n == 0 {
			return fmt.Errorf("leader's reconcile total %v (%v)", n, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := follower.reconciles(); err != nil || n != 0 {
		t.Fatalf("the follower reconciled %v times (%v), want 0", n, err)
	}
	if l, err := follower.leading(); err != nil || l {
		t.Fatalf("the follower leads too (%v)", err)
	}
	for _, want := range []string{`workqueue_adds_total{name="foo"}`, `controller_runtime_reconcile_total{controller="foo",result="success"}`} {
		if _, found, err := leader.metric(want); err != nil || !found {
			t.Fatalf("leader's /metrics has no %s (%v)", want, err)
		}
	}

	// Crash the leader: no release; the follower waits out the lease.
	killed := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-leader.done
	bound := leLeaseDuration + time.Duration((1+jitterFactor)*float64(leRetryPeriod))
	if err := poll(ctx, bound+time.Minute, func() error {
		l, err := follower.leading()
		if err != nil || !l {
			return fmt.Errorf("%s does not lead yet (%v)", follower.name, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	takeover := time.Since(killed)
	t.Logf("%s took over %v after the leader was killed (lease %v, retry %v)", follower.name, takeover.Round(time.Millisecond), leLeaseDuration, leRetryPeriod)
	// Polling and scraping add to the measured time on a loaded machine:
	// allow 10 s over lease duration + a jittered retry period.
	if takeover > bound+10*time.Second {
		t.Errorf("takeover after %v, want within the lease duration + retry period (%v) + 10 s", takeover, bound)
	}
	newID := leaseHolder(t, ns)
	if newID == leaderID || newID == "" {
		t.Fatalf("lease holder after takeover = %q (was %q)", newID, leaderID)
	}
	createFoo(t, ns, "two")
	waitConfigMap(t, ns, "two")
	if n, err := follower.reconciles(); err != nil || n == 0 {
		t.Fatalf("the new leader reconciled %v times (%v)", n, err)
	}

	// A graceful stop releases the Lease: a third replica, synced and
	// waiting, takes over without waiting out the lease duration.
	standby := startReplica(t, bin, "c", cluster.Kubeconfig, leArgs...)
	if err := poll(ctx, 2*time.Minute, func() error {
		if _, err := standby.leading(); err != nil {
			return err
		}
		if code, body, err := standby.get("/readyz"); err != nil || code != http.StatusOK {
			return fmt.Errorf("c /readyz: %d %q %v", code, body, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	if err := follower.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-follower.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the leader did not exit after SIGTERM")
	}
	if follower.waitErr != nil {
		t.Fatalf("graceful shutdown: %v, want exit status 0", follower.waitErr)
	}
	if h := leaseHolder(t, ns); h == newID {
		t.Fatalf("lease still held by %q after its graceful shutdown: not released", h)
	}
	if err := poll(ctx, 2*time.Minute, func() error {
		l, err := standby.leading()
		if err != nil || !l {
			return fmt.Errorf("c does not lead yet (%v)", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("c took over %v after SIGTERM to the leader (lease %v)", time.Since(stopped).Round(time.Millisecond), leLeaseDuration)
	createFoo(t, ns, "three")
	waitConfigMap(t, ns, "three")
}

// leaseHolder returns the holder of the test's Lease in ns.
func leaseHolder(t *testing.T, ns string) string {
	t.Helper()
	l, err := admin(t).kube.CoordinationV1().Leases(ns).Get(context.Background(), leLeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("lease %s/%s: %v", ns, leLeaseName, err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// createFoo creates Foo ns/name with one data entry.
func createFoo(t *testing.T, ns, name string) {
	t.Helper()
	_, err := admin(t).samples.SamplesV1alpha1().Foos(ns).Create(context.Background(), &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       samplesv1alpha1.FooSpec{Data: map[string]string{"k": name}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Foo %s/%s: %v", ns, name, err)
	}
}

// waitConfigMap waits until the controller made Foo ns/name's ConfigMap.
func waitConfigMap(t *testing.T, ns, name string) {
	t.Helper()
	if err := poll(context.Background(), 2*time.Minute, func() error {
		cm, err := admin(t).kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data["k"] != name {
			return fmt.Errorf("ConfigMap %s/%s data %v", ns, name, cm.Data)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

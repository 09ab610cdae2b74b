package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
)

// script drives the demo: each step prints its header, changes the fake
// cluster, and waits until everything the change caused has settled (the
// informers hold the step's writes, every handler has returned, the queue
// is empty and no reconcile runs), so that the step's events and reconciles
// print under its own header.
type script struct {
	ctx     context.Context
	kube    kubernetes.Interface
	samples versioned.Interface
	out     io.Writer
	// settled reports whether the controller and informers are quiescent.
	settled func() bool
	// reconciled returns the reconcile lines printed so far.
	reconciled func() []string
	// steps counts the steps run.
	steps int
}

// step is one change of the demo.
type step struct {
	say  string       // header
	do   func() error // the change
	want string       // a reconcile line the step must cause (substring); "" for none
	// keys are the Foos whose reconciles the step may cause.
	keys []string
}

// script's steps, in order.
func (s *script) plan() []step {
	ctx := s.ctx
	foos := s.samples.SamplesV1alpha1().Foos
	return []step{
		{"== demo: a FooClass \"gold\" whose defaults every gold Foo gets", func() error {
			_, err := s.samples.SamplesV1alpha1().FooClasses().Create(ctx, &samplesv1alpha1.FooClass{
				ObjectMeta: metav1.ObjectMeta{Name: "gold"},
				Spec:       samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"tier": "gold"}},
			}, metav1.CreateOptions{})
			return err
		}, "", nil},
		{"== demo: creating Foo shop/web of class gold", func() error {
			return create(ctx, foos("shop"), "web", "gold", map[string]string{"color": "blue"})
		}, "shop/web     -> created", []string{"shop/web"}},
		{"== demo: creating Foo shop/db", func() error {
			return create(ctx, foos("shop"), "db", "", map[string]string{"engine": "postgres"})
		}, "shop/db      -> created", []string{"shop/db"}},
		{"== demo: creating Foo lab/test", func() error { return create(ctx, foos("lab"), "test", "", nil) },
			"lab/test     -> created", []string{"lab/test"}},
		{"== demo: editing shop/web's spec", func() error {
			f, err := foos("shop").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			f.Spec.Data["color"] = "green"
			_, err = foos("shop").Update(ctx, f, metav1.UpdateOptions{})
			return err
		}, "shop/web     -> updated", []string{"shop/web"}},
		{"== demo: someone edits the ConfigMap of shop/db by hand; the controller puts it back", func() error {
			cm, err := s.kube.CoreV1().ConfigMaps("shop").Get(ctx, "db", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data["engine"] = "mysql"
			_, err = s.kube.CoreV1().ConfigMaps("shop").Update(ctx, cm, metav1.UpdateOptions{})
			return err
		}, "shop/db      -> updated", []string{"shop/db"}},
		{"== demo: a MaintenanceWindow pauses namespace lab (every Foo is looked at again)", func() error {
			_, err := s.samples.OpsV1().MaintenanceWindows().Create(ctx, &opsv1.MaintenanceWindow{
				ObjectMeta: metav1.ObjectMeta{Name: "upgrade"},
				Spec:       opsv1.MaintenanceWindowSpec{Namespaces: []string{"lab"}, Reason: "node upgrade"},
			}, metav1.CreateOptions{})
			return err
		}, "lab/test     -> paused", []string{"shop/web", "shop/db", "lab/test"}},
		{"== demo: a Foo whose ConfigMap name is taken by someone else", func() error {
			_, err := s.kube.CoreV1().ConfigMaps("shop").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cache"}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			return create(ctx, foos("shop"), "cache", "", nil)
		}, "shop/cache   -> error", []string{"shop/cache"}},
		{"== demo: deleting shop/web", func() error {
			return foos("shop").Delete(ctx, "web", metav1.DeleteOptions{})
		}, "shop/web     -> deleted", []string{"shop/web"}},
	}
}

// run runs the steps; it fails if a step does not settle or does not cause
// the reconcile it wants.
func (s *script) run() error {
	for _, st := range s.plan() {
		fmt.Fprintln(s.out, st.say)
		before := len(s.reconciled())
		if err := st.do(); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimPrefix(st.say, "== demo: "), err)
		}
		s.steps++
		if err := s.settle(); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimPrefix(st.say, "== demo: "), err)
		}
		if st.want == "" {
			continue
		}
		found := false
		for _, line := range s.reconciled()[before:] {
			found = found || strings.Contains(line, st.want)
		}
		if !found {
			return fmt.Errorf("%s: no reconcile %q", strings.TrimPrefix(st.say, "== demo: "), st.want)
		}
	}
	return nil
}

// settleChecks is how many checks in a row must find everything settled: a
// notification between the store and its handlers, or a request between
// the queue and a worker, is visible to none of the probes for a moment.
const settleChecks = 3

// settle polls until the demo has been quiescent for settleChecks polls
// in a row, for up to 30 s.
func (s *script) settle() error {
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for quiet := 0; quiet < settleChecks; {
		if s.settled() {
			quiet++
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			return errors.New("did not settle within 30s")
		}
		select {
		case <-tick.C:
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	return nil
}

type fooCreator interface {
	Create(ctx context.Context, foo *samplesv1alpha1.Foo, opts metav1.CreateOptions) (*samplesv1alpha1.Foo, error)
}

func create(ctx context.Context, c fooCreator, name, class string, data map[string]string) error {
	if data == nil {
		data = map[string]string{}
	}
	_, err := c.Create(ctx, &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       samplesv1alpha1.FooSpec{ClassName: class, Data: data},
	}, metav1.CreateOptions{})
	return err
}

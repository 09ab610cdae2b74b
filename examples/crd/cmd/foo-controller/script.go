package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
)

// script drives the demo: each step changes the fake cluster and waits for
// the reconcile it should cause.
type script struct {
	ctx        context.Context
	kube       kubernetes.Interface
	samples    versioned.Interface
	reconciled <-chan string
}

func (s *script) run() error {
	ctx := s.ctx
	foos := s.samples.SamplesV1alpha1().Foos
	steps := []struct {
		say  string
		do   func() error
		want string // substring of the reconcile line to wait for
	}{
		{"", func() error {
			_, err := s.samples.SamplesV1alpha1().FooClasses().Create(ctx, &samplesv1alpha1.FooClass{
				ObjectMeta: metav1.ObjectMeta{Name: "gold"},
				Spec:       samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"tier": "gold"}},
			}, metav1.CreateOptions{})
			return err
		}, ""},
		{"", func() error { return create(ctx, foos("shop"), "web", "gold", map[string]string{"color": "blue"}) }, "shop/web     -> created"},
		{"", func() error { return create(ctx, foos("shop"), "db", "", map[string]string{"engine": "postgres"}) }, "shop/db      -> created"},
		{"", func() error { return create(ctx, foos("lab"), "test", "", nil) }, "lab/test     -> created"},
		{"== demo: editing shop/web's spec", func() error {
			f, err := foos("shop").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			f.Spec.Data["color"] = "green"
			_, err = foos("shop").Update(ctx, f, metav1.UpdateOptions{})
			return err
		}, "shop/web     -> updated"},
		{"== demo: someone edits the ConfigMap of shop/db by hand; the controller puts it back", func() error {
			cm, err := s.kube.CoreV1().ConfigMaps("shop").Get(ctx, "db", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data["engine"] = "mysql"
			_, err = s.kube.CoreV1().ConfigMaps("shop").Update(ctx, cm, metav1.UpdateOptions{})
			return err
		}, "shop/db      -> updated"},
		{"== demo: a MaintenanceWindow pauses namespace lab", func() error {
			_, err := s.samples.OpsV1().MaintenanceWindows().Create(ctx, &opsv1.MaintenanceWindow{
				ObjectMeta: metav1.ObjectMeta{Name: "upgrade"},
				Spec:       opsv1.MaintenanceWindowSpec{Namespaces: []string{"lab"}, Reason: "node upgrade"},
			}, metav1.CreateOptions{})
			return err
		}, "lab/test     -> paused"},
		{"== demo: a Foo whose ConfigMap name is taken by someone else", func() error {
			_, err := s.kube.CoreV1().ConfigMaps("shop").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cache"}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			return create(ctx, foos("shop"), "cache", "", nil)
		}, "shop/cache   -> error"},
		{"== demo: deleting shop/web", func() error {
			return foos("shop").Delete(ctx, "web", metav1.DeleteOptions{})
		}, "shop/web     -> deleted"},
	}
	for _, st := range steps {
		if st.say != "" {
			fmt.Println(st.say)
		}
		if err := st.do(); err != nil {
			return err
		}
		if st.want == "" {
			continue
		}
		if err := s.waitFor(st.want); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) waitFor(want string) error {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line := <-s.reconciled:
			if strings.Contains(line, want) {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("demo: no reconcile %q within 30s", want)
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
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

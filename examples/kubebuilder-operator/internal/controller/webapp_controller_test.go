/*
Copyright 2026 The typedinformer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webv1alpha1 "github.com/typedinformer/typedinformer/examples/kubebuilder-operator/api/v1alpha1"
)

const (
	timeout  = 20 * time.Second
	interval = 100 * time.Millisecond
)

// newNamespace creates a namespace with a generated name for one spec.
// envtest runs no namespace controller, so it is never emptied; specs use
// fresh ones instead of deleting them.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webapp-test-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func newWebapp(namespace, name, image string, replicas int32) *webv1alpha1.Webapp {
	return &webv1alpha1.Webapp{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       webv1alpha1.WebappSpec{Image: image, Replicas: &replicas, Port: 8080},
	}
}

// newPod is a pod as a Webapp's Deployment would make it, carrying its
// labels; envtest runs no Deployment controller, so the tests make them.
func newPod(namespace, name, instance string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{
			"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": instance,
		}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

func condition(app *webv1alpha1.Webapp, t string) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(app.Status.Conditions, t); c != nil {
		return c.Status
	}
	return ""
}

var _ = Describe("Webapp controller", func() {
	var (
		ctx       context.Context
		namespace string
	)

	BeforeEach(func() {
		ctx = context.Background()
		namespace = newNamespace(ctx)
	})

	It("creates a Deployment and a Service controlled by the Webapp and reports availability", func() {
		app := newWebapp(namespace, "shop", "nginx:1.27", 2)
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		key := client.ObjectKeyFromObject(app)

		By("putting the finalizer on the Webapp")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, app)).To(Succeed())
			g.Expect(app.Finalizers).To(ContainElement(Finalizer))
		}, timeout, interval).Should(Succeed())

		By("creating the Deployment")
		dep := &appsv1.Deployment{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(2))))
		Expect(dep.Spec.Template.Spec.Containers).To(HaveLen(1))
		Expect(dep.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.27"))
		Expect(dep.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort).To(Equal(int32(8080)))
		Expect(dep.Spec.Selector.MatchLabels).To(Equal(map[string]string{
			"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": "shop",
		}))
		Expect(metav1.IsControlledBy(dep, app)).To(BeTrue(), "the Deployment's controller is the Webapp")

		By("creating the Service")
		svc := &corev1.Service{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, svc)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Expect(svc.Spec.Ports).To(HaveLen(1))
		Expect(svc.Spec.Ports[0].Port).To(Equal(int32(8080)))
		Expect(svc.Spec.Ports[0].TargetPort.IntValue()).To(Equal(8080))
		Expect(svc.Spec.Selector).To(Equal(dep.Spec.Selector.MatchLabels))
		Expect(metav1.IsControlledBy(svc, app)).To(BeTrue(), "the Service's controller is the Webapp")

		By("reporting Available=False while the Deployment has no available replicas")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, app)).To(Succeed())
			g.Expect(condition(app, webv1alpha1.TypeAvailable)).To(Equal(metav1.ConditionFalse))
			g.Expect(condition(app, webv1alpha1.TypeDegraded)).To(Equal(metav1.ConditionFalse))
		}, timeout, interval).Should(Succeed())

		By("reporting Available=True once the Deployment's status says its replicas are available")
		Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
		dep.Status.Replicas, dep.Status.ReadyReplicas, dep.Status.AvailableReplicas = 2, 2, 2
		Expect(k8sClient.Status().Update(ctx, dep)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, app)).To(Succeed())
			g.Expect(condition(app, webv1alpha1.TypeAvailable)).To(Equal(metav1.ConditionTrue))
		}, timeout, interval).Should(Succeed())
	})

	It("follows the Webapp's spec and undoes changes made to its Deployment and Service", func() {
		app := newWebapp(namespace, "blog", "nginx:1.27", 1)
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		key := client.ObjectKeyFromObject(app)
		dep := &appsv1.Deployment{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
		}, timeout, interval).Should(Succeed())

		By("updating the Deployment when the Webapp's spec changes")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, app)).To(Succeed())
			app.Spec.Replicas = new(int32(3))
			app.Spec.Image = "nginx:1.28"
			app.Spec.Port = 9090
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
			g.Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(3))))
			g.Expect(dep.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
			g.Expect(dep.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort).To(Equal(int32(9090)))
		}, timeout, interval).Should(Succeed())
		svc := &corev1.Service{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, svc)).To(Succeed())
			g.Expect(svc.Spec.Ports[0].Port).To(Equal(int32(9090)))
		}, timeout, interval).Should(Succeed())

		By("scaling the Deployment back when someone else scales it")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
			dep.Spec.Replicas = new(int32(7))
			g.Expect(k8sClient.Update(ctx, dep)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, dep)).To(Succeed())
			g.Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(3))))
		}, timeout, interval).Should(Succeed())

		By("recreating the Service when it is deleted")
		Expect(k8sClient.Get(ctx, key, svc)).To(Succeed())
		oldUID := svc.UID
		Expect(k8sClient.Delete(ctx, svc)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, svc)).To(Succeed())
			g.Expect(svc.UID).NotTo(Equal(oldUID))
		}, timeout, interval).Should(Succeed())
	})

	It("reports the pods of its own namespace only", func() {
		other := newNamespace(ctx)
		// The same name in two namespaces: the pods' labels are the same.
		mine := newWebapp(namespace, "api", "nginx:1.27", 2)
		theirs := newWebapp(other, "api", "nginx:1.27", 2)
		Expect(k8sClient.Create(ctx, mine)).To(Succeed())
		Expect(k8sClient.Create(ctx, theirs)).To(Succeed())

		for _, p := range []*corev1.Pod{
			newPod(namespace, "api-a", "api"),
			newPod(namespace, "api-b", "api"),
			newPod(namespace, "web-a", "web"),
			newPod(other, "api-c", "api"),
		} {
			Expect(k8sClient.Create(ctx, p)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(mine), mine)).To(Succeed())
			g.Expect(mine.Status.Pods).To(Equal([]string{"api-a", "api-b"}))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())
			g.Expect(theirs.Status.Pods).To(Equal([]string{"api-c"}))
		}, timeout, interval).Should(Succeed())

		By("dropping a deleted pod")
		Expect(k8sClient.Delete(ctx, newPod(namespace, "api-a", "api"), client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(mine), mine)).To(Succeed())
			g.Expect(mine.Status.Pods).To(Equal([]string{"api-b"}))
		}, timeout, interval).Should(Succeed())
	})

	It("runs its finalizer when the Webapp is deleted", func() {
		app := newWebapp(namespace, "cms", "nginx:1.27", 1)
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		key := client.ObjectKeyFromObject(app)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, app)).To(Succeed())
			g.Expect(app.Finalizers).To(ContainElement(Finalizer))
			g.Expect(k8sClient.Get(ctx, key, &appsv1.Deployment{})).To(Succeed())
		}, timeout, interval).Should(Succeed())

		Expect(k8sClient.Delete(ctx, app)).To(Succeed())
		Eventually(func(g Gomega) {
			err := k8sClient.Get(ctx, key, app)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "Get after delete: %v", err)
		}, timeout, interval).Should(Succeed())

		By("recording a Finalizing event about the Webapp")
		Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				if e.Regarding.Kind == "Webapp" && e.Regarding.Name == "cms" {
					reasons = append(reasons, e.Reason)
				}
			}
			g.Expect(reasons).To(ContainElement("Finalizing"))
		}, timeout, interval).Should(Succeed())
	})

	DescribeTable("the CRD's validation refuses a bad spec, naming the field",
		func(mutate func(*webv1alpha1.Webapp), field string) {
			app := newWebapp(namespace, "bad", "nginx:1.27", 1)
			mutate(app)
			err := k8sClient.Create(ctx, app)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "Create: %v", err)
			Expect(err.Error()).To(ContainSubstring(field))
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "bad"}, app))).To(BeTrue())
		},
		Entry("too many replicas", func(a *webv1alpha1.Webapp) { a.Spec.Replicas = new(int32(11)) }, "spec.replicas"),
		Entry("negative replicas", func(a *webv1alpha1.Webapp) { a.Spec.Replicas = new(int32(-1)) }, "spec.replicas"),
		Entry("empty image", func(a *webv1alpha1.Webapp) { a.Spec.Image = "" }, "spec.image"),
		Entry("port out of range", func(a *webv1alpha1.Webapp) { a.Spec.Port = 70000 }, "spec.port"),
	)
})

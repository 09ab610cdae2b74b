package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	samplesscheme "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/scheme"
	sampleslisters "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/samples/v1alpha1"
	corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"
)

// readChecker finds the reconciler's stale reads of its own writes, apart
// from the write tracker it checks: its transport decodes every successful
// write's answer on its own, and its listers compare each object a read
// returns with the writes that had returned before the read began. A read
// is stale when it returns
//   - an object of the UID this process wrote at a newer resourceVersion,
//   - an object of a UID this process deleted, or
//   - NotFound (Get) for an object this process wrote that the server still
//     holds under the same UID (so it existed throughout); checked only when
//     live is set, and not in a sharded replica, whose caches may have let
//     the object's range go.
//
// Each stale read is handed to report. Safe for concurrent use.
type readChecker struct {
	decoder runtime.Decoder
	report  func(key, what string)
	// live reads kind namespace/name from the server, bypassing every
	// cache: (uid, found, err).
	live func(ctx context.Context, kind, namespace, name string) (types.UID, bool, error)

	mu      sync.Mutex
	seq     uint64
	written map[string]writeRecord // kind namespace/name
	deleted map[types.UID]uint64   // the seq of the deletion
}

// writeRecord is the latest write this process made to one object.
type writeRecord struct {
	seq uint64
	uid types.UID
	rv  uint64
}

func newReadChecker(report func(key, what string)) (*readChecker, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := samplesscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return &readChecker{
		decoder: serializer.NewCodecFactory(s).UniversalDeserializer(),
		report:  report,
		written: map[string]writeRecord{},
		deleted: map[types.UID]uint64{},
	}, nil
}

func objectKey(kind, namespace, name string) string { return kind + " " + namespace + "/" + name }

// WrapTransport records the writes the clients built on it make.
func (c *readChecker) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode/100 != 2 {
			return resp, err
		}
		switch req.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			return resp, err
		}
		body, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return resp, nil
		}
		c.recordAnswer(req.Method, body)
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// recordAnswer records what a successful write's answer says: the object
// as written, or, for a DELETE, the UID that no longer exists (a Status, or
// the object without a deletionTimestamp).
func (c *readChecker) recordAnswer(method string, body []byte) {
	obj, gvk, err := c.decoder.Decode(body, nil, nil)
	if err != nil {
		return
	}
	if st, ok := obj.(*metav1.Status); ok {
		if method == http.MethodDelete && st.Details != nil && st.Details.UID != "" {
			c.recordDelete(st.Details.UID)
		}
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if method == http.MethodDelete && m.GetDeletionTimestamp() == nil {
		c.recordDelete(m.GetUID())
		return
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	kind := gvk.Kind
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.written[objectKey(kind, m.GetNamespace(), m.GetName())] = writeRecord{seq: c.seq, uid: m.GetUID(), rv: rv}
}

func (c *readChecker) recordDelete(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.deleted[uid] = c.seq
}

// begin marks the start of a read: only writes recorded up to the mark are
// held against it.
func (c *readChecker) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// check holds obj, returned by a read that began at mark, against the
// writes recorded before the mark.
func (c *readChecker) check(mark uint64, kind string, obj metav1.Object) {
	key := objectKey(kind, obj.GetNamespace(), obj.GetName())
	c.mu.Lock()
	w, wrote := c.written[key]
	delSeq, gone := c.deleted[obj.GetUID()]
	c.mu.Unlock()
	if gone && delSeq <= mark {
		c.report(key, fmt.Sprintf("returned UID %s at resourceVersion %s, which this process had deleted", obj.GetUID(), obj.GetResourceVersion()))
		return
	}
	if !wrote || w.seq > mark || w.uid != obj.GetUID() {
		return
	}
	if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && rv < w.rv {
		c.report(key, fmt.Sprintf("returned resourceVersion %d after this process had written %d", rv, w.rv))
	}
}

// checkNotFound holds a NotFound from a Get that began at mark against the
// writes recorded before it, asking the server whether the object written
// still exists.
func (c *readChecker) checkNotFound(mark uint64, kind, namespace, name string) {
	if c.live == nil {
		return
	}
	key := objectKey(kind, namespace, name)
	c.mu.Lock()
	w, wrote := c.written[key]
	_, gone := c.deleted[w.uid]
	c.mu.Unlock()
	if !wrote || gone || w.seq > mark {
		return
	}
	uid, found, err := c.live(context.Background(), kind, namespace, name)
	if err != nil || !found || uid != w.uid {
		return
	}
	c.report(key, fmt.Sprintf("returned NotFound after this process had written resourceVersion %d, and the server still holds UID %s", w.rv, uid))
}

// wrap makes r's Foo and ConfigMap reads checked.
func (c *readChecker) wrap(r *controller.Reconciler) {
	r.Foos = checkedFooLister{FooLister: r.Foos, c: c}
	r.ConfigMaps = checkedConfigMapLister{ConfigMapLister: r.ConfigMaps, c: c}
}

// checkedGet runs get and checks what it returns.
func checkedGet[T metav1.Object](c *readChecker, kind, namespace, name string, get func(string) (T, error)) (T, error) {
	mark := c.begin()
	obj, err := get(name)
	switch {
	case err == nil:
		c.check(mark, kind, obj)
	case apierrors.IsNotFound(err):
		c.checkNotFound(mark, kind, namespace, name)
	}
	return obj, err
}

// checkedList runs list and checks every object it returns.
func checkedList[T metav1.Object](c *readChecker, kind string, sel labels.Selector, list func(labels.Selector) ([]T, error)) ([]T, error) {
	mark := c.begin()
	objs, err := list(sel)
	for _, o := range objs {
		c.check(mark, kind, o)
	}
	return objs, err
}

type checkedFooLister struct {
	sampleslisters.FooLister
	c *readChecker
}

func (l checkedFooLister) List(sel labels.Selector) ([]*samplesv1alpha1.Foo, error) {
	return checkedList(l.c, "Foo", sel, l.FooLister.List)
}

func (l checkedFooLister) Foos(namespace string) sampleslisters.FooNamespaceLister {
	return checkedFooNamespaceLister{FooNamespaceLister: l.FooLister.Foos(namespace), c: l.c, namespace: namespace}
}

type checkedFooNamespaceLister struct {
	sampleslisters.FooNamespaceLister
	c         *readChecker
	namespace string
}

func (l checkedFooNamespaceLister) Get(name string) (*samplesv1alpha1.Foo, error) {
	return checkedGet(l.c, "Foo", l.namespace, name, l.FooNamespaceLister.Get)
}

func (l checkedFooNamespaceLister) List(sel labels.Selector) ([]*samplesv1alpha1.Foo, error) {
	return checkedList(l.c, "Foo", sel, l.FooNamespaceLister.List)
}

type checkedConfigMapLister struct {
	corelisters.ConfigMapLister
	c *readChecker
}

func (l checkedConfigMapLister) List(sel labels.Selector) ([]*corev1.ConfigMap, error) {
	return checkedList(l.c, "ConfigMap", sel, l.ConfigMapLister.List)
}

func (l checkedConfigMapLister) ConfigMaps(namespace string) corelisters.ConfigMapNamespaceLister {
	return checkedConfigMapNamespaceLister{ConfigMapNamespaceLister: l.ConfigMapLister.ConfigMaps(namespace), c: l.c, namespace: namespace}
}

type checkedConfigMapNamespaceLister struct {
	corelisters.ConfigMapNamespaceLister
	c         *readChecker
	namespace string
}

func (l checkedConfigMapNamespaceLister) Get(name string) (*corev1.ConfigMap, error) {
	return checkedGet(l.c, "ConfigMap", l.namespace, name, l.ConfigMapNamespaceLister.Get)
}

func (l checkedConfigMapNamespaceLister) List(sel labels.Selector) ([]*corev1.ConfigMap, error) {
	return checkedList(l.c, "ConfigMap", sel, l.ConfigMapNamespaceLister.List)
}

// readChecker returns the checker of --trace-file's replica, nil without a
// trace file, with its transport wrapped around cfg's. In a sharded replica
// a NotFound is not checked (see readChecker).
func (f *soakFlags) readChecker(cfg *rest.Config, sharded bool, report func(key, what string)) (*readChecker, error) {
	if f.trace == "" {
		return nil, nil
	}
	c, err := newReadChecker(report)
	if err != nil {
		return nil, err
	}
	if !sharded {
		kube, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
		if err != nil {
			return nil, err
		}
		samples, err := versioned.NewForConfig(rest.CopyConfig(cfg))
		if err != nil {
			return nil, err
		}
		c.live = func(ctx context.Context, kind, namespace, name string) (types.UID, bool, error) {
			var obj metav1.Object
			var err error
			switch kind {
			case "Foo":
				obj, err = samples.SamplesV1alpha1().Foos(namespace).Get(ctx, name, metav1.GetOptions{})
			case "ConfigMap":
				obj, err = kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
			default:
				return "", false, fmt.Errorf("no live read of kind %s", kind)
			}
			if apierrors.IsNotFound(err) {
				return "", false, nil
			}
			if err != nil {
				return "", false, err
			}
			return obj.GetUID(), true, nil
		}
	}
	cfg.Wrap(c.WrapTransport)
	return c, nil
}

package shardingtest

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Leases is an in-memory Lease store of one namespace that behaves like
// the apiserver where a Ring depends on it: every write bumps a global
// resourceVersion, Update and Delete with a stale resourceVersion fail
// with Conflict, Create of an existing name fails with AlreadyExists,
// List filters by label selector and is linearizable with the writes.
// Objects passed in and returned are copies. Safe for concurrent use.
//
// Fail, when set, is called before every operation with its verb ("get",
// "create", "update", "list", "delete") and the Lease name ("" for list);
// a non-nil error is returned instead of performing it, which lets a test
// cut one replica off the store.
type Leases struct {
	// Fail injects errors; see the type's comment. Set it before use or
	// guard it yourself: it is read without the store's lock.
	Fail func(verb, name string) error

	mu     sync.Mutex
	rv     int
	leases map[string]*coordinationv1.Lease
}

// NewLeases returns an empty store.
func NewLeases() *Leases { return &Leases{leases: map[string]*coordinationv1.Lease{}} }

func (l *Leases) fail(verb, name string) error {
	if l.Fail == nil {
		return nil
	}
	return l.Fail(verb, name)
}

// Get returns a copy of the Lease called name, or NotFound.
func (l *Leases) Get(_ context.Context, name string, _ metav1.GetOptions) (*coordinationv1.Lease, error) {
	if err := l.fail("get", name); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.leases[name]
	if !ok {
		return nil, apierrors.NewNotFound(coordinationv1.Resource("leases"), name)
	}
	return cur.DeepCopy(), nil
}

// Create stores a copy of lease with a new resourceVersion, or fails with
// AlreadyExists.
func (l *Leases) Create(_ context.Context, lease *coordinationv1.Lease, _ metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if err := l.fail("create", lease.Name); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.leases[lease.Name]; ok {
		return nil, apierrors.NewAlreadyExists(coordinationv1.Resource("leases"), lease.Name)
	}
	return l.store(lease), nil
}

// Update replaces the Lease if lease's resourceVersion is the stored one
// (an empty resourceVersion is rejected like a stale one, as the
// apiserver does for Leases' optimistic updates here).
func (l *Leases) Update(_ context.Context, lease *coordinationv1.Lease, _ metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if err := l.fail("update", lease.Name); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.leases[lease.Name]
	if !ok {
		return nil, apierrors.NewNotFound(coordinationv1.Resource("leases"), lease.Name)
	}
	if lease.ResourceVersion != cur.ResourceVersion {
		return nil, apierrors.NewConflict(coordinationv1.Resource("leases"), lease.Name, errStale{})
	}
	return l.store(lease), nil
}

type errStale struct{}

func (errStale) Error() string {
	return "the object has been modified; please apply your changes to the latest version and try again"
}

func (l *Leases) store(lease *coordinationv1.Lease) *coordinationv1.Lease {
	l.rv++
	c := lease.DeepCopy()
	c.ResourceVersion = strconv.Itoa(l.rv)
	l.leases[c.Name] = c
	return c.DeepCopy()
}

// List returns copies of the Leases matching opts.LabelSelector, sorted by
// name.
func (l *Leases) List(_ context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if err := l.fail("list", ""); err != nil {
		return nil, err
	}
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := &coordinationv1.LeaseList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(l.rv)}}
	for _, name := range slices.Sorted(maps.Keys(l.leases)) {
		if sel.Matches(labels.Set(l.leases[name].Labels)) {
			out.Items = append(out.Items, *l.leases[name].DeepCopy())
		}
	}
	return out, nil
}

// Delete removes the Lease, honouring a resourceVersion precondition.
func (l *Leases) Delete(_ context.Context, name string, opts metav1.DeleteOptions) error {
	if err := l.fail("delete", name); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.leases[name]
	if !ok {
		return apierrors.NewNotFound(coordinationv1.Resource("leases"), name)
	}
	if p := opts.Preconditions; p != nil && p.ResourceVersion != nil && *p.ResourceVersion != cur.ResourceVersion {
		return apierrors.NewConflict(coordinationv1.Resource("leases"), name, errStale{})
	}
	delete(l.leases, name)
	return nil
}

package sharding

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaseClient is the part of the coordination.k8s.io/v1 Lease API of one
// namespace that a Ring uses. Its method shapes are those of client-go's
// typed Lease client, so clientset.CoordinationV1().Leases(namespace)
// satisfies it unchanged; this package itself does not depend on
// client-go. Implementations must be safe for concurrent use and must
// honour metadata.resourceVersion on Update (a stale one fails with a
// Conflict status error), and List must be a consistent read (a List that
// starts after a write returned sees that write).
type LeaseClient interface {
	// Get returns the Lease called name, or a NotFound status error.
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error)
	// Create stores a new Lease, or fails with AlreadyExists.
	Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error)
	// Update replaces a Lease if its resourceVersion is current, or fails
	// with Conflict (stale) or NotFound.
	Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
	// List returns the Leases matching opts.LabelSelector.
	List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error)
	// Delete removes a Lease, honouring opts.Preconditions.
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Labels and annotations a Ring puts on its Lease.
const (
	// RingLabel names the ring a Lease belongs to; a Ring lists the
	// Leases with RingLabel=<ring name>.
	RingLabel = "sharding.typedinformer.io/ring"
	// HeldAnnotation records, in FormatRanges form, the ranges the Lease's
	// holder claims: every range it is working on, plus ranges it is about
	// to start. Other replicas do not start a range that a live Lease
	// claims.
	HeldAnnotation = "sharding.typedinformer.io/held"
)

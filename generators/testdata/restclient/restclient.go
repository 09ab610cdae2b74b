// Package restclient stands in for client-go's rest package in the
// testdata clientsets, which cannot import client-go: it has the methods
// generated informers call on a group client's RESTClient(). Its
// RESTClient is not client-go's, so informers over these clientsets list
// and watch through the typed clients, as over a client-go fake clientset.
package restclient

import (
	"context"
	"errors"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Interface is client-go's rest.Interface as informers use it.
type Interface interface {
	// Get starts a GET request.
	Get() *Request
}

// RESTClient is a REST client that sends no requests.
type RESTClient struct{}

// Get starts a request that fails when sent.
func (*RESTClient) Get() *Request { return &Request{} }

// RateLimiter stands in for client-go's flowcontrol.RateLimiter.
type RateLimiter interface {
	// Wait blocks until the request may be sent.
	Wait(ctx context.Context) error
}

// Request is a request that is never sent.
type Request struct{}

// NamespaceIfScoped returns r.
func (r *Request) NamespaceIfScoped(string, bool) *Request { return r }

// Resource returns r.
func (r *Request) Resource(string) *Request { return r }

// VersionedParams returns r.
func (r *Request) VersionedParams(runtime.Object, runtime.ParameterCodec) *Request { return r }

// UseProtobufAsDefault returns r.
func (r *Request) UseProtobufAsDefault() *Request { return r }

// SetHeader returns r.
func (r *Request) SetHeader(string, ...string) *Request { return r }

// Timeout returns r.
func (r *Request) Timeout(time.Duration) *Request { return r }

// Throttle returns r.
func (r *Request) Throttle(RateLimiter) *Request { return r }

// Stream fails: the stand-in sends no requests.
func (r *Request) Stream(context.Context) (io.ReadCloser, error) {
	return nil, errors.New("restclient: the testdata REST client sends no requests")
}

// Package wirerest connects runtime/wire to client-go: it turns a
// clientset's REST client into the wire.Fetch a wire.ListWatch reads
// from, so that lists and watches keep the client's authentication, rate
// limiter, retries and content-type configuration while the runtime
// decodes the response bytes item by item.
//
// The request is built by wire.NewRESTFetch, which generated informers use
// too; this package only names client-go's types for the bench.
package wirerest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Fetch returns a wire.Fetch that GETs resource (a plural such as "pods")
// in namespace ("" for all namespaces or a cluster-scoped resource)
// through client, as a generated informer does (wire.NewRESTFetch): the
// typed client's request, protobuf preferred only when the client's
// configuration sets no content type, JSON asked for as asked. params is
// unused: the options are encoded with metav1.ParameterCodec, as the
// typed clients encode ListOptions. It panics unless client is client-go's
// *rest.RESTClient, which is what a clientset's RESTClient() returns.
func Fetch(client rest.Interface, namespace, resource string, _ runtime.ParameterCodec) wire.Fetch {
	f, ok := wire.NewRESTFetch(client, namespace, resource)
	if !ok {
		panic(fmt.Sprintf("wirerest.Fetch: %T is not client-go's *rest.RESTClient", client))
	}
	return f
}

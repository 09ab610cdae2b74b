package dynamicinformer

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"
)

// A real dynamic client is read through its REST client (runtime/wire);
// a fake is not.
func TestRESTClientOfADynamicClient(t *testing.T) {
	dc, err := dynamic.NewForConfig(&rest.Config{Host: "http://apiserver.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	if restClientOf(dc) == nil {
		t.Fatal("no REST client found in a *dynamic.DynamicClient: client-go moved it, informers fall back to the dynamic client's decoding")
	}
	if _, ok := listerWatcher(dc, widgetsGVR, "", nil).(wireListerWatcher); !ok {
		t.Fatal("the informer of a real dynamic client does not read through runtime/wire")
	}
	if restClientOf(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())) != nil || restClientOf(nil) != nil {
		t.Fatal("a REST client found in a fake or nil client")
	}
}

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

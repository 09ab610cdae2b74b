package listers_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// A lister reads an informer's indexer; here the indexer is filled by hand.
func ExampleNew() {
	indexer := cache.NewIndexer[*corev1.Pod](nil)
	_ = indexer.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"app": "web"}}})
	_ = indexer.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", Labels: map[string]string{"app": "db"}}})

	pods := listers.New(indexer, schema.GroupResource{Resource: "pods"})
	web, _ := pods.Namespace("shop").List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	fmt.Println(len(web), web[0].Name)

	_, err := pods.Namespace("shop").Get("cache")
	fmt.Println(err)
	// Output:
	// 1 web
	// pods "cache" not found
}

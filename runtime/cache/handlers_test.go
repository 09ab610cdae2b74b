package cache_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

func TestFilteringHandlerTranslatesUpdatesToKeepTheFilteredSetConsistent(t *testing.T) {
	web := newPod("a", "p", "app", "web")
	web.ResourceVersion = "1"
	db := newPod("a", "p", "app", "db")
	db.ResourceVersion = "2"
	web2 := newPod("a", "p", "app", "web")
	web2.ResourceVersion = "3"
	tests := []struct {
		name string
		call func(h cache.ResourceEventHandler[*corev1.Pod])
		want []string
	}{
		{"add passing", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnAdd(web, true) }, []string{"add a/p@1 initial=true"}},
		{"add filtered", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnAdd(db, false) }, nil},
		{"update both pass", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnUpdate(web, web2) }, []string{"update a/p@1->3"}},
		{"update starts passing", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnUpdate(db, web2) }, []string{"add a/p@3 initial=false"}},
		{"update stops passing", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnUpdate(web, db) }, []string{"delete a/p@1 unknown=false"}},
		{"update neither passes", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnUpdate(db, db) }, nil},
		{"delete passing tombstone", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnDelete(web, true) }, []string{"delete a/p@1 unknown=true"}},
		{"delete filtered", func(h cache.ResourceEventHandler[*corev1.Pod]) { h.OnDelete(db, false) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder()
			h := cache.FilteringResourceEventHandler[*corev1.Pod]{
				FilterFunc: func(p *corev1.Pod) bool { return p.Labels["app"] == "web" },
				Handler:    rec,
			}
			tt.call(h)
			if got := rec.Events(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("calls = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResourceEventHandlerFuncsNilFuncsIgnored(t *testing.T) {
	var h cache.ResourceEventHandler[*corev1.Pod] = cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{}
	p := newPod("a", "p")
	h.OnAdd(p, false)
	h.OnUpdate(p, p)
	h.OnDelete(p, true)
	var got []string
	h = cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, initial bool) { got = append(got, fmt.Sprint("add ", initial)) },
		UpdateFunc: func(_, _ *corev1.Pod) { got = append(got, "update") },
		DeleteFunc: func(p *corev1.Pod, unknown bool) { got = append(got, fmt.Sprint("delete ", unknown)) },
	}
	h.OnAdd(p, true)
	h.OnUpdate(p, p)
	h.OnDelete(p, true)
	if fmt.Sprint(got) != "[add true update delete true]" {
		t.Fatalf("calls = %q", got)
	}
}

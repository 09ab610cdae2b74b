package cache

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// TestWriteTrackerRecentWrites: the tracker remembers the latest write of
// each of the last RecentWrites objects of a resource, oldest first; a
// write's result recorded after a newer one of the same object does not
// take its place; an object deleted is forgotten without counting as lost
// (no relist returns it); once an object is dropped for want of room the
// resource is lossy.
func TestWriteTrackerRecentWrites(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	cms := schema.GroupResource{Resource: "configmaps"}
	type op struct {
		del  bool
		name string
		rv   int64
		uid  types.UID
	}
	for _, tc := range []struct {
		name      string
		keep      int
		ops       []op
		want      string // name@rv, oldest first
		wantLossy bool
	}{
		{name: "in order", keep: 3, ops: []op{{name: "a", rv: 1}, {name: "b", rv: 2}}, want: "a@1 b@2"},
		{name: "rewritten moves last", keep: 3, ops: []op{{name: "a", rv: 1}, {name: "b", rv: 2}, {name: "a", rv: 3}}, want: "b@2 a@3"},
		{name: "older result of the same object", keep: 3, ops: []op{{name: "a", rv: 5, uid: "u"}, {name: "a", rv: 4, uid: "u"}}, want: "a@5"},
		{name: "re-created object", keep: 3, ops: []op{{name: "a", rv: 5, uid: "u"}, {name: "a", rv: 4, uid: "v"}}, want: "a@4"},
		{name: "full", keep: 2, ops: []op{{name: "a", rv: 1}, {name: "b", rv: 2}, {name: "c", rv: 3}}, want: "b@2 c@3", wantLossy: true},
		{name: "deleted", keep: 2, ops: []op{{name: "a", rv: 1, uid: "u"}, {name: "b", rv: 2}, {del: true, name: "a", uid: "u"}, {name: "c", rv: 3}}, want: "b@2 c@3"},
		{name: "deleted by any uid", keep: 2, ops: []op{{name: "a", rv: 1, uid: "u"}, {del: true, name: "a"}}, want: ""},
		{name: "delete of another uid", keep: 2, ops: []op{{name: "a", rv: 1, uid: "u"}, {del: true, name: "a", uid: "old"}}, want: "a@1"},
		{name: "none kept", keep: -1, ops: []op{{name: "a", rv: 1}}, want: "", wantLossy: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewWriteTracker(WriteTrackerOptions{RecentWrites: tc.keep})
			for _, o := range tc.ops {
				if o.del {
					tr.Deleted(pods, "ns", o.name, o.uid)
					continue
				}
				tr.remember(pods, recentWrite{k: keys.Key{Namespace: "ns", Name: o.name}, rv: o.rv, uid: o.uid})
			}
			ws, lossy := tr.recentWritesOf(pods)
			got := make([]string, 0, len(ws))
			for _, w := range ws {
				got = append(got, w.k.Name+"@"+strconv.FormatInt(w.rv, 10))
			}
			if s := strings.Join(got, " "); s != tc.want || lossy != tc.wantLossy {
				t.Errorf("recent writes %q, lossy %v; want %q, %v", s, lossy, tc.want, tc.wantLossy)
			}
			if ws, lossy := tr.recentWritesOf(cms); len(ws) != 0 || lossy {
				t.Errorf("another resource has recent writes %v, lossy %v", ws, lossy)
			}
		})
	}
}

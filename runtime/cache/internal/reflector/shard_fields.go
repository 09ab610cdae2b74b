package reflector

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The shard selector fields of KEP-5866 exist only from
// k8s.io/apimachinery v0.36 (metav1.ListOptions.ShardSelector and
// metav1.ListMeta.ShardInfo.Selector), while this module supports v0.35.
// The runtime therefore never names them: it finds them by reflection, once
// per process (the struct types are fixed at build time), and when they are
// absent it cannot ask the server to shard and filters on the client.
// Reflection was preferred over a hook supplied by a v0.36+ module because
// it needs nothing from the user and the lookup is done once; each request
// then costs one field set through a cached index path.

// shardSelectorIndex is the index path of ListOptions.ShardSelector (a
// string), or nil when the apimachinery this program is built with lacks it.
var shardSelectorIndex = func() []int {
	f, ok := reflect.TypeFor[metav1.ListOptions]().FieldByName("ShardSelector")
	if !ok || f.Type.Kind() != reflect.String {
		return nil
	}
	return f.Index
}()

// shardInfoIndex is the index path of ListMeta.ShardInfo (a pointer to a
// struct with a Selector string), or nil when absent.
var shardInfoIndex, shardInfoSelectorIndex = func() ([]int, []int) {
	f, ok := reflect.TypeFor[metav1.ListMeta]().FieldByName("ShardInfo")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
		return nil, nil
	}
	s, ok := f.Type.Elem().FieldByName("Selector")
	if !ok || s.Type.Kind() != reflect.String {
		return nil, nil
	}
	return f.Index, s.Index
}()

// ServerSideShardingSupported reports whether the shard fields exist
// (runtime/cache.ServerSideShardingSupported).
func ServerSideShardingSupported() bool {
	return shardSelectorIndex != nil && shardInfoIndex != nil
}

// setShardSelector sets opts.ShardSelector to sel; it reports false when the
// field does not exist.
func setShardSelector(opts *metav1.ListOptions, sel string) bool {
	if shardSelectorIndex == nil {
		return false
	}
	reflect.ValueOf(opts).Elem().FieldByIndex(shardSelectorIndex).SetString(sel)
	return true
}

// ShardSelectorOf returns opts.ShardSelector, or "" when the field does not
// exist (runtime/cache.ShardSelectorOf).
func ShardSelectorOf(opts metav1.ListOptions) string {
	if shardSelectorIndex == nil {
		return ""
	}
	return reflect.ValueOf(&opts).Elem().FieldByIndex(shardSelectorIndex).String()
}

// SetShardInfo sets lm.ShardInfo to {Selector: sel} and reports whether the
// field exists (runtime/cache.SetShardInfo).
func SetShardInfo(lm *metav1.ListMeta, sel string) bool {
	if shardInfoIndex == nil {
		return false
	}
	f := reflect.ValueOf(lm).Elem().FieldByIndex(shardInfoIndex)
	p := reflect.New(f.Type().Elem())
	p.Elem().FieldByIndex(shardInfoSelectorIndex).SetString(sel)
	f.Set(p)
	return true
}

// unstructuredContent is implemented by unstructured lists, whose ShardInfo
// is a map entry rather than a struct field.
type unstructuredContent interface {
	UnstructuredContent() map[string]any
}

// shardInfoSelector returns the selector a list's ShardInfo echoes and
// whether ShardInfo was present.
func shardInfoSelector(list any, lm metav1.ListInterface) (string, bool) {
	if u, ok := list.(unstructuredContent); ok {
		md, _ := u.UnstructuredContent()["metadata"].(map[string]any)
		si, ok := md["shardInfo"].(map[string]any)
		if !ok {
			return "", false
		}
		sel, _ := si["selector"].(string)
		return sel, true
	}
	// A typed list (PodList, ...) embeds metav1.ListMeta, so meta's list
	// accessor returns the list itself; GetListMeta reaches the struct.
	m, ok := lm.(*metav1.ListMeta)
	if !ok {
		if a, isAccessor := list.(metav1.ListMetaAccessor); isAccessor {
			m, ok = a.GetListMeta().(*metav1.ListMeta)
		}
	}
	if !ok || m == nil || shardInfoIndex == nil {
		return "", false
	}
	p := reflect.ValueOf(m).Elem().FieldByIndex(shardInfoIndex)
	if p.IsNil() {
		return "", false
	}
	return p.Elem().FieldByIndex(shardInfoSelectorIndex).String(), true
}

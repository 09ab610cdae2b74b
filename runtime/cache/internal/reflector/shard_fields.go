package reflector

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The shard selector fields of KEP-5866 exist only from
// k8s.io/apimachinery v0.36 (metav1.ListOptions.ShardSelector and
// metav1.ListMeta.ShardInfo.Selector), while this module supports v0.35.
// The runtime therefore never names them: it finds them by reflection, once
// per sharded reflector (the struct types are fixed at build time), and
// when they are absent it cannot ask the server to shard and filters on the
// client. Reflection was preferred over a hook supplied by a v0.36+ module
// because it needs nothing from the user and the lookup is done once; each
// request then costs one field set through a remembered index path. The
// exported helpers, for fake servers and tests, look the fields up on each
// call.

// shardFields holds where the shard fields are in the structs of the
// apimachinery this program is built with: the index paths of
// ListOptions.ShardSelector (a string), ListMeta.ShardInfo (a pointer to a
// struct) and its Selector (a string), each nil when absent. The struct
// types are fixed at build time, so a reflector looks them up once, when it
// is built.
type shardFields struct {
	selector, info, infoSelector []int
}

// lookupShardFields finds the shard fields by reflection.
func lookupShardFields() shardFields {
	var f shardFields
	if sf, ok := reflect.TypeFor[metav1.ListOptions]().FieldByName("ShardSelector"); ok && sf.Type.Kind() == reflect.String {
		f.selector = sf.Index
	}
	info, ok := reflect.TypeFor[metav1.ListMeta]().FieldByName("ShardInfo")
	if !ok || info.Type.Kind() != reflect.Pointer || info.Type.Elem().Kind() != reflect.Struct {
		return f
	}
	if sel, ok := info.Type.Elem().FieldByName("Selector"); ok && sel.Type.Kind() == reflect.String {
		f.info, f.infoSelector = info.Index, sel.Index
	}
	return f
}

// ServerSideShardingSupported reports whether the shard fields exist
// (runtime/cache.ServerSideShardingSupported).
func ServerSideShardingSupported() bool {
	f := lookupShardFields()
	return f.selector != nil && f.info != nil
}

// setSelector sets opts.ShardSelector to sel; it reports false when the
// field does not exist.
func (f shardFields) setSelector(opts *metav1.ListOptions, sel string) bool {
	if f.selector == nil {
		return false
	}
	reflect.ValueOf(opts).Elem().FieldByIndex(f.selector).SetString(sel)
	return true
}

// ShardSelectorOf returns opts.ShardSelector, or "" when the field does not
// exist (runtime/cache.ShardSelectorOf).
func ShardSelectorOf(opts metav1.ListOptions) string {
	f := lookupShardFields()
	if f.selector == nil {
		return ""
	}
	return reflect.ValueOf(&opts).Elem().FieldByIndex(f.selector).String()
}

// SetShardInfo sets lm.ShardInfo to {Selector: sel} and reports whether the
// field exists (runtime/cache.SetShardInfo).
func SetShardInfo(lm *metav1.ListMeta, sel string) bool {
	f := lookupShardFields()
	if f.info == nil {
		return false
	}
	v := reflect.ValueOf(lm).Elem().FieldByIndex(f.info)
	p := reflect.New(v.Type().Elem())
	p.Elem().FieldByIndex(f.infoSelector).SetString(sel)
	v.Set(p)
	return true
}

// unstructuredContent is implemented by unstructured lists, whose ShardInfo
// is a map entry rather than a struct field.
type unstructuredContent interface {
	UnstructuredContent() map[string]any
}

// shardInfoSelector returns the selector a list's ShardInfo echoes and
// whether ShardInfo was present.
func (f shardFields) infoSelectorOf(list any, lm metav1.ListInterface) (string, bool) {
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
	if !ok || m == nil || f.info == nil {
		return "", false
	}
	p := reflect.ValueOf(m).Elem().FieldByIndex(f.info)
	if p.IsNil() {
		return "", false
	}
	return p.Elem().FieldByIndex(f.infoSelector).String(), true
}

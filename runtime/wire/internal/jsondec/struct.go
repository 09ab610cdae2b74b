package jsondec

import (
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unsafe"
)

// field is a JSON member of a struct: the Go field it is decoded into,
// reached from the struct's address through embedded pointers (each
// allocated when nil) and then offset.
type field struct {
	name   string
	hops   []hop
	offset uintptr
	node   *node
}

// hop goes through an embedded pointer at offset, allocating a elem when
// it is nil.
type hop struct {
	offset uintptr
	elem   reflect.Type
}

// candidate is a Go field that may carry a JSON name, found while walking
// a struct and its embedded structs.
type candidate struct {
	name   string
	tagged bool
	index  []int
	quoted bool
	hidden bool // reached through an unexported embedded pointer
}

// structFields lists the JSON members of struct type t by encoding/json's
// rules; ok is false when t has a member this package leaves to
// sigs.k8s.io/json (a ",string" option, or one reached through an
// unexported embedded pointer).
func structFields(t reflect.Type) ([]candidate, bool) {
	type level struct {
		typ    reflect.Type
		index  []int
		hidden bool
	}
	var fields []candidate
	next := []level{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	ok := true
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validName(name) {
					name = ""
				}
				index := append(append([]int(nil), f.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				quoted := false
				for _, o := range strings.Split(opts, ",") {
					if o == "string" {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							quoted = true
						}
					}
				}
				// encoding/json cannot allocate an unexported embedded
				// pointer; what is promoted through one is left to it.
				hidden := f.hidden || sf.Anonymous && !sf.IsExported() && sf.Type.Kind() == reflect.Pointer
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					c := candidate{name: name, tagged: name != "", index: index, quoted: quoted, hidden: hidden}
					if c.name == "" {
						c.name = sf.Name
					}
					fields = append(fields, c)
					if count[f.typ] > 1 {
						// Two embeddings of one type at one depth: the
						// pair cancels out below.
						fields = append(fields, c)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index, hidden: hidden})
				}
			}
		}
	}
	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i], fields[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tagged != b.tagged {
			return a.tagged
		}
		for k, x := range a.index {
			if k >= len(b.index) {
				return false
			}
			if x != b.index[k] {
				return x < b.index[k]
			}
		}
		return len(a.index) < len(b.index)
	})
	var out []candidate
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue // ambiguous: no field has the name
		}
		c := group[0]
		if c.quoted || c.hidden {
			ok = false
		}
		out = append(out, c)
	}
	return out, ok
}

// validName reports whether a json tag's name is used as the name, as
// encoding/json decides.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// structDec returns the decode function of struct type t, or nil when it
// is left to sigs.k8s.io/json.
func (b *builder) structDec(t reflect.Type) decodeFunc {
	cands, ok := structFields(t)
	if !ok {
		return nil
	}
	byName := make(map[string]*field, len(cands))
	for _, c := range cands {
		f := &field{name: c.name}
		cur := t
		for k, idx := range c.index {
			sf := cur.Field(idx)
			f.offset += sf.Offset
			if k == len(c.index)-1 {
				f.node = b.node(sf.Type)
				break
			}
			cur = sf.Type
			if cur.Kind() == reflect.Pointer {
				cur = cur.Elem()
				f.hops = append(f.hops, hop{offset: f.offset, elem: cur})
				f.offset = 0
			}
		}
		byName[c.name] = f
	}
	return func(s *state, p unsafe.Pointer) error {
		switch s.cur() {
		case 'n':
			return s.null()
		case '{':
		default:
			return s.mismatch(t)
		}
		more, err := s.open('}')
		for more && err == nil {
			var k []byte
			if k, err = s.key(); err != nil {
				return err
			}
			f := byName[string(k)]
			if f == nil {
				if _, err = s.skip(); err != nil {
					return err
				}
			} else {
				fp := p
				for _, h := range f.hops {
					pp := (*unsafe.Pointer)(unsafe.Add(fp, h.offset))
					if *pp == nil {
						*pp = reflect.New(h.elem).UnsafePointer()
					}
					fp = *pp
				}
				if err = f.node.dec(s, unsafe.Add(fp, f.offset)); err != nil {
					return inField(err, t, f.name)
				}
			}
			more, err = s.next('}')
		}
		return err
	}
}

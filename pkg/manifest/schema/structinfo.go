package schema

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// fieldInfo is one JSON field of a struct.
type fieldInfo struct {
	name      string
	index     []int
	typ       reflect.Type
	omitEmpty bool
	fill      *fillPlan // of typ
}

type structInfo struct {
	fields []fieldInfo // in declaration order, embedded structs flattened
	byName map[string]fieldInfo
	names  []string
	quoted map[string]bool // quotedIntFields of the type
}

var structCache sync.Map // reflect.Type -> *structInfo

// structFields lists the JSON fields of a struct type as encoding/json sees them.
func structFields(t reflect.Type) *structInfo {
	if v, ok := structCache.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{byName: map[string]fieldInfo{}, quoted: quotedIntFields[t]}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int{}, index...), i)
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fi := fieldInfo{name: name, index: idx, typ: f.Type, omitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
				fill: fillPlanOf(f.Type)}
			if _, dup := info.byName[name]; dup {
				continue
			}
			info.fields = append(info.fields, fi)
			info.byName[name] = fi
			info.names = append(info.names, name)
		}
	}
	walk(t, nil)
	sort.Strings(info.names)
	structCache.Store(t, info)
	return info
}

// FieldOf is the Go type of the field that the JSON name k stands for in struct type t,
// and whether it is omitempty; ok is false when t has no such field.
func FieldOf(t reflect.Type, k string) (typ reflect.Type, omitEmpty, ok bool) {
	f, ok := structFields(t).byName[k]
	if !ok {
		return nil, false, false
	}
	return f.typ, f.omitEmpty, true
}

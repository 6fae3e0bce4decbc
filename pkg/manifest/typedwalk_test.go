package manifest

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"

	"github.com/rogpeppe/go-internal/txtar"
	"k8s.io/apimachinery/pkg/api/resource"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// walkCorpus is every typed object of the examples, a generated tree, the bad-input
// corpus and the manifests of the command scripts.
func walkCorpus(t *testing.T) []Object {
	tree, err := manifesttest.Generate(t.TempDir(), 3, 30)
	if err != nil {
		t.Fatal(err)
	}
	var objs []Object
	for _, dir := range []string{"../../examples/payments", tree.Dir} {
		set, _ := Load([]string{dir}, nil)
		if set != nil {
			objs = append(objs, set.Objects...)
		}
	}
	add := func(name string, data []byte) {
		o, _ := Decode(name, data)
		objs = append(objs, o...)
	}
	files, _ := filepath.Glob("../../testdata/badinput/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, data)
	}
	scripts, _ := filepath.Glob("../../testdata/script/*.txtar")
	for _, f := range scripts {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range a.Files {
			if strings.HasSuffix(af.Name, ".yaml") || strings.HasSuffix(af.Name, ".yml") || strings.HasSuffix(af.Name, ".json") {
				add(f+"/"+af.Name, af.Data)
			}
		}
	}
	var typed []Object
	for _, o := range objs {
		if o.Obj != nil && schema.KindOf(o.Obj) != nil {
			typed = append(typed, o)
		}
	}
	return typed
}

func findings(errs []*DecodeError) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// The typed walk finds what the walk over the JSON value finds, message for message, in
// every object of the corpus and in many objects made wrong from them at random (strings,
// numbers, quantities, lists and maps changed, fields set and unset, list items repeated).
func TestTypedWalkAsJSON(t *testing.T) {
	objs := walkCorpus(t)
	if len(objs) < 200 {
		t.Fatalf("only %d typed objects", len(objs))
	}
	kinds := map[*schema.Kind]bool{}
	for _, o := range objs {
		kinds[schema.KindOf(o.Obj)] = true
	}
	for _, ki := range schema.Kinds() {
		if !kinds[ki] {
			t.Errorf("no %s in the corpus", ki.GVK().Kind)
		}
	}
	rng := rand.New(rand.NewSource(1))
	compared, found := 0, 0
	compare := func(o Object) {
		t.Helper()
		got, want := findings(validateObjectBy(o, true)), findings(validateObjectBy(o, false))
		compared++
		found += len(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", o.Source, got, want)
		}
	}
	for _, o := range objs {
		compare(o)
		for range 30 {
			m := o
			m.Obj = o.Obj.DeepCopyObject()
			mutateTyped(rng, reflect.ValueOf(m.Obj).Elem(), 0.08)
			compare(m)
		}
		m := o // built in memory: no lines, no apiVersion and kind
		m.lines, m.APIVersion, m.Kind = nil, "", ""
		m.Obj = o.Obj.DeepCopyObject()
		m.Obj.GetObjectKind().SetGroupVersionKind(k8sschema.GroupVersionKind{})
		compare(m)
	}
	t.Logf("%d objects compared, %d findings", compared, found)
	if found < 1000 {
		t.Fatalf("only %d findings: the mutations do not reach the rules", found)
	}
}

// quantityType is resource.Quantity's, which mutateTyped sets as a quantity.
var quantityType = reflect.TypeOf(resource.Quantity{})

var (
	oddStrings    = []string{"", "-bad", "UPPER", "a@b", "dev", "v1.31.0", "x y", strings.Repeat("a", 300), "16Gi", "calico"}
	oddInts       = []int64{-1, 0, 1, 3, 70000, 1 << 40}
	oddQuantities = []string{"-1", "0", "5Ei", "16Gi", "500m"}
)

// mutateTyped changes some of the leaves of v at random (each with probability p).
func mutateTyped(rng *rand.Rand, v reflect.Value, p float64) {
	if !v.CanSet() {
		return
	}
	hit := rng.Float64() < p
	t := v.Type()
	if t == quantityType {
		if hit {
			v.Set(reflect.ValueOf(resource.MustParse(oddQuantities[rng.Intn(len(oddQuantities))])))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		switch {
		case v.IsNil() && hit:
			v.Set(reflect.New(t.Elem()))
			mutateTyped(rng, v.Elem(), p*4)
		case !v.IsNil() && hit:
			v.Set(reflect.Zero(t))
		case !v.IsNil():
			mutateTyped(rng, v.Elem(), p)
		}
	case reflect.Struct:
		if t.PkgPath() != "" && strings.HasPrefix(t.PkgPath(), "time") {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				mutateTyped(rng, v.Field(i), p)
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return
		}
		if hit && v.Len() > 0 {
			switch rng.Intn(3) {
			case 0:
				v.Set(reflect.Append(v, v.Index(0)))
			case 1:
				v.Set(reflect.MakeSlice(t, 0, 0))
			default:
				v.Set(reflect.Zero(t))
			}
			return
		}
		if hit {
			v.Set(reflect.Append(v, reflect.New(t.Elem()).Elem()))
			mutateTyped(rng, v.Index(v.Len()-1), p*4)
		}
		for i := 0; i < v.Len(); i++ {
			mutateTyped(rng, v.Index(i), p)
		}
	case reflect.Map:
		if !hit || t.Key().Kind() != reflect.String {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		k := reflect.ValueOf(oddStrings[rng.Intn(len(oddStrings))]).Convert(t.Key())
		e := reflect.New(t.Elem()).Elem()
		mutateTyped(rng, e, 1)
		v.SetMapIndex(k, e)
	case reflect.String:
		if hit {
			v.SetString(oddStrings[rng.Intn(len(oddStrings))])
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if hit {
			x := oddInts[rng.Intn(len(oddInts))]
			if !v.OverflowInt(x) {
				v.SetInt(x)
			}
		}
	case reflect.Bool:
		if hit {
			v.SetBool(!v.Bool())
		}
	}
}

package gitops

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// An ApplicationSet's parameters and template, as Argo CD's applicationset-controller
// computes and renders them: its generators give one parameter set per Application, and
// every string of the template (values and map keys) is rendered with it, by Go's
// text/template when spec.goTemplate is set, else by fasttemplate's plain {{name}}
// substitution.

// params are one generated Application's parameters: flat "path.basename" keys of
// strings for fasttemplate, nested values for Go templates.
type params = map[string]any

// renderer renders template strings the way one ApplicationSet asks for.
type renderer struct {
	goTemplate bool
	options    []string // spec.goTemplateOptions ("missingkey=error")
}

// appSetFuncs are the functions Argo CD gives Go templates: sprig's generic set without
// the ones that read the environment or the network, plus its own.
var appSetFuncs = func() template.FuncMap {
	fm := sprig.TxtFuncMap()
	for _, f := range []string{"env", "expandenv", "getHostByName"} {
		delete(fm, f)
	}
	fm["normalize"] = sanitizeName
	fm["toYaml"] = toYAML
	fm["fromYaml"] = fromYAML
	fm["fromYamlArray"] = fromYAMLArray
	fm["tpl"] = func(string, any) (string, error) { return "", nil } // bound to each template in replace
	// What would make a template of a hostile tree exhaust memory is bounded: a string
	// rendered, and the lists and repetitions sprig builds.
	fm["repeat"] = func(n int, s string) (string, error) {
		if n < 0 || n > maxRendered || n*len(s) > maxRendered {
			return "", fmt.Errorf("repeat: %d times %d bytes is past the %d bytes a template may render", n, len(s), maxRendered)
		}
		return strings.Repeat(s, n), nil
	}
	until := fm["untilStep"].(func(int, int, int) []int)
	fm["until"] = func(n int) ([]int, error) { return bounded(until, 0, n, 1) }
	fm["untilStep"] = func(start, stop, step int) ([]int, error) { return bounded(until, start, stop, step) }
	return fm
}()

// maxRendered bounds what one template string renders to, and the lists it builds.
const maxRendered = 1 << 20

func bounded(untilStep func(int, int, int) []int, start, stop, step int) ([]int, error) {
	if step != 0 && (stop-start)/step > maxRendered {
		return nil, fmt.Errorf("a list of more than %d items", maxRendered)
	}
	return untilStep(start, stop, step), nil
}

// limitedBuffer is a buffer that refuses to grow past maxRendered.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxRendered {
		return 0, fmt.Errorf("the template renders more than %d bytes", maxRendered)
	}
	return b.Buffer.Write(p)
}

// replace renders one string with p.
func (r renderer) replace(s string, p params) (string, error) {
	if r.goTemplate {
		t, err := template.New("").Funcs(appSetFuncs).Parse(s)
		if err != nil {
			return "", fmt.Errorf("failed to parse template %s: %w", s, err)
		}
		for _, o := range r.options {
			t = t.Option(o)
		}
		t = t.Funcs(template.FuncMap{"tpl": tplFunc(t)})
		var b limitedBuffer
		if err := t.Execute(&b, p); err != nil {
			return "", fmt.Errorf("failed to execute go template %s: %w", s, err)
		}
		return b.String(), nil
	}
	return fastReplace(s, p)
}

// templated is Argo CD's test for a string fasttemplate renders: "{{" then "}}" on one line.
var templated = regexp.MustCompile("{{.*}}")

// fastReplace is fasttemplate's substitution as Argo CD calls it: each {{tag}} whose
// trimmed name is a parameter holding a string is replaced; any other is left as written.
// A "{{" without its "}}" is an error, as fasttemplate's.
func fastReplace(s string, p params) (string, error) {
	if !templated.MatchString(s) {
		return s, nil
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return "", fmt.Errorf("invalid template %q: no end tag \"}}\" after %q", s, rest[i:])
		}
		tag := rest[i+2 : i+2+j]
		b.WriteString(rest[:i])
		if v, ok := p[strings.TrimSpace(tag)].(string); ok && strings.TrimSpace(tag) != "" {
			b.WriteString(v)
		} else {
			b.WriteString("{{" + tag + "}}")
		}
		rest = rest[i+2+j+2:]
	}
	b.WriteString(rest)
	return b.String(), nil
}

// tplFunc is Argo CD's "tpl": a string rendered as a template of its own, with the
// calling template's functions and options.
func tplFunc(parent *template.Template) func(string, any) (string, error) {
	return func(s string, vals any) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", err
		}
		if t, err = t.New(parent.Name()).Parse(s); err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", s, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, vals); err != nil {
			return "", err
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
}

// deep renders every string of a template (values and map keys) with p, into a copy.
func (r renderer) deep(v any, p params) (any, error) {
	switch v := v.(type) {
	case string:
		return r.replace(v, p)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if x == nil {
				continue // as Argo CD's copy of a typed object drops a nil
			}
			rx, err := r.deep(x, p)
			if err != nil {
				return nil, err
			}
			rk, err := r.replace(k, p)
			if err != nil {
				return nil, err
			}
			out[rk] = rx
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			rx, err := r.deep(x, p)
			if err != nil {
				return nil, err
			}
			out[i] = rx
		}
		return out, nil
	}
	return v, nil
}

var notDNSName = regexp.MustCompile("[^-a-z0-9.]")

// sanitizeName is Argo CD's "normalize": lower case, what a DNS name cannot hold
// replaced by "-", at most 253 characters, no leading or trailing "-" or ".".
func sanitizeName(name string) string {
	name = notDNSName.ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

func toYAML(v any) (string, error) {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := sigsyaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	a := []any{}
	if err := sigsyaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}

// pathParams are the parameters of a git generator's directory (dir) or file (file
// non-empty, dir its directory), named as Argo CD names them: path, path.basename,
// path.basenameNormalized, path[n] for each segment, path.filename and
// path.filenameNormalized for a file; nested under "path" for Go templates. prefix is
// the generator's pathParamPrefix.
func pathParams(p params, dir, file, prefix string, goTemplate bool) {
	if goTemplate {
		pp := map[string]any{"path": dir, "basename": path.Base(dir),
			"basenameNormalized": sanitizeName(path.Base(dir)), "segments": toAny(strings.Split(dir, "/"))}
		if file != "" {
			pp["filename"] = path.Base(file)
			pp["filenameNormalized"] = sanitizeName(path.Base(file))
		}
		if prefix != "" {
			p[prefix] = map[string]any{"path": pp}
		} else {
			p["path"] = pp
		}
		return
	}
	name := "path"
	if prefix != "" {
		name = prefix + ".path"
	}
	p[name] = dir
	p[name+".basename"] = path.Base(dir)
	p[name+".basenameNormalized"] = sanitizeName(path.Base(dir))
	if file != "" {
		p[name+".filename"] = path.Base(file)
		p[name+".filenameNormalized"] = sanitizeName(path.Base(file))
	}
	for i, s := range strings.Split(dir, "/") {
		if s != "" {
			p[name+"["+strconv.Itoa(i)+"]"] = s
		}
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// flattenParams is a git file's object as fasttemplate parameters: nested keys joined by ".",
// list items by their index, each value as fmt's %v prints it.
func flattenParams(prefix string, v any, out params) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flattenParams(join(prefix, k), x, out)
		}
	case []any:
		for i, x := range v {
			flattenParams(join(prefix, strconv.Itoa(i)), x, out)
		}
	default:
		if prefix != "" {
			out[prefix] = fmt.Sprintf("%v", v)
		}
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// addValues adds a generator's values, each rendered with the parameters so far: under
// "values.NAME" for fasttemplate, in a "values" map for Go templates.
func (r renderer) addValues(values map[string]string, p params) error {
	if len(values) == 0 {
		return nil
	}
	nested := map[string]any{}
	for k, v := range values {
		s, err := r.replace(v, p)
		if err != nil {
			return fmt.Errorf("values.%s: %w", k, err)
		}
		if r.goTemplate {
			nested[k] = s
		} else {
			p["values."+k] = s
		}
	}
	if r.goTemplate {
		p["values"] = nested
	}
	return nil
}

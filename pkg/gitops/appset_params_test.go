package gitops

import (
	"strings"
	"testing"
)

// The cases of Argo CD's own tests of Render.Replace (TestRenderTemplateParams and
// TestRenderTemplateParamsGoTemplate in applicationset/utils/utils_test.go of
// github.com/argoproj/argo-cd, commit e9537cd0176053dd39a3f3f83fee8ca11a887ca7), with the
// results Argo CD asserts. Argo CD's module cannot be imported here to compare with it
// directly: github.com/argoproj/argo-cd/v3 v3.6.1 requires Go 1.27 and Kubernetes 0.37
// modules, and replaces its gitops-engine module by a directory of its own repository.
func TestReplaceAsArgoCD(t *testing.T) {
	fast := []struct {
		name, in, want string
		p              params
	}{
		{"simple substitution", "{{one}}", "two", params{"one": "two"}},
		{"simple substitution with whitespace", "{{ one }}", "two", params{"one": "two"}},
		{"template characters but not in a template", "}} {{", "}} {{", params{"one": "two"}},
		{"nested template", "{{ }}", "{{ }}", params{"one": "{{ }}"}},
		{"field with whitespace", "{{ }}", "{{ }}", params{" ": "two", "": "three"}},
		{"template contains itself, containing itself", "{{one}}", "{{one}}", params{"{{one}}": "{{one}}"}},
		{"template contains itself, containing something else", "{{one}}", "{{one}}", params{"{{one}}": "{{two}}"}},
		{"templates are case sensitive", "{{ONE}}", "{{ONE}}", params{"{{one}}": "two"}},
		{"multiple on a line", "{{one}}{{one}}", "twotwo", params{"one": "two"}},
		{"multiple different on a line", "{{one}}{{three}}", "twofour", params{"one": "two", "three": "four"}},
		{"multiple different on a line with quote", "{{one}} {{three}}", `"hello" world four`, params{"one": `"hello" world`, "three": "four"}},
		// Not Argo CD's cases: a tag across lines is not a template; a parameter that is
		// not a string is left as written.
		{"tag across lines", "{{\none}}", "{{\none}}", params{"one": "two"}},
		{"not a string", "{{n}}", "{{n}}", params{"n": 3}},
	}
	for _, c := range fast {
		got, err := renderer{}.replace(c.in, c.p)
		if err != nil || got != c.want {
			t.Errorf("fasttemplate %s: %q gives %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
	if _, err := (renderer{}).replace("{{one}} {{", params{"one": "two"}); err == nil {
		t.Errorf("fasttemplate: a start tag without its end is not refused")
	}
	image := map[string]any{"name": "busybox", "version": "latest"}
	hpa := func(on bool) params {
		return params{"replicas": 3, "hpa": map[string]any{"enabled": on, "minReplicas": 1, "maxReplicas": 5}}
	}
	goCases := []struct {
		name, in, want, err string
		p                   params
	}{
		{name: "simple substitution", in: "{{ .one }}", want: "two", p: params{"one": "two"}},
		{name: "template contains itself", in: "{{ .one }}", want: "{{one}}", p: params{"one": "{{one}}"}},
		{name: "multiple on a line", in: "{{.one}}{{.one}}", want: "twotwo", p: params{"one": "two"}},
		{name: "multiple different on a line with quote", in: "{{.one}} {{.three}}", want: `"hello" world four`, p: params{"one": `"hello" world`, "three": "four"}},
		{name: "depth", in: "{{ .image.version }}", want: "latest", p: params{"replicas": 3, "image": image}},
		{name: "multiple depth", in: "{{ .image.name }}:{{ .image.version }}", want: "busybox:latest", p: params{"image": image}},
		{name: "if ok", in: "{{ if .hpa.enabled }}{{ .hpa.maxReplicas }}{{ else }}{{ .replicas }}{{ end }}", want: "5", p: hpa(true)},
		{name: "if not ok", in: "{{ if .hpa.enabled }}{{ .hpa.maxReplicas }}{{ else }}{{ .replicas }}{{ end }}", want: "3", p: hpa(false)},
		{name: "loop", in: "{{ range .volumes }}[{{ .name }}]{{ end }}", want: "[volume-one][volume-two]",
			p: params{"volumes": []map[string]any{{"name": "volume-one"}, {"name": "volume-two"}}}},
		{name: "index", in: `{{ index .admin "admin-ca" }}, {{ index .admin "admin-jks" }}`, want: "value admin ca, value admin jks",
			p: params{"admin": map[string]any{"admin-ca": "value admin ca", "admin-jks": "value admin jks"}}},
		{name: "quote", in: "{{.quote}}", want: `"`, p: params{"quote": `"`}},
		{name: "parse error", in: "{{functiondoesnotexist}}", p: params{"data": "a data string"},
			err: `failed to parse template {{functiondoesnotexist}}: template: :1: function "functiondoesnotexist" not defined`},
		{name: "template error", in: "{{.data.test}}", p: params{"data": "a data string"},
			err: `failed to execute go template {{.data.test}}: template: :1:7: executing "" at <.data.test>: can't evaluate field test in type interface {}`},
		// Argo CD's function set: sprig without env, normalize, toYaml, tpl.
		{name: "normalize", in: "{{ normalize .n }}", want: "my-team.prod", p: params{"n": "-My_Team.prod-"}},
		{name: "sprig", in: `{{ .n | upper | trunc 3 }}`, want: "PAY", p: params{"n": "payments"}},
		{name: "toYaml", in: "{{ toYaml .m }}", want: "a: 1", p: params{"m": map[string]any{"a": 1}}},
		{name: "tpl", in: `{{ tpl "{{ .n }}-x" . }}`, want: "web-x", p: params{"n": "web"}},
		{name: "env is not there", in: `{{ env "HOME" }}`, p: params{}, err: `function "env" not defined`},
	}
	for _, c := range goCases {
		got, err := renderer{goTemplate: true}.replace(c.in, c.p)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("go template %s: error %v, want %q", c.name, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("go template %s: %q gives %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
	// goTemplateOptions: missingkey=error refuses what is missing.
	if _, err := (renderer{goTemplate: true, options: []string{"missingkey=error"}}).replace("{{ .nope }}", params{"a": "b"}); err == nil {
		t.Errorf("missingkey=error: a missing key is not refused")
	}
}

// The git generator's parameters, as Argo CD's git generator tests expect them
// (applicationset/generators/git_test.go: path, path.basename, path[n],
// path.basenameNormalized; a file's path is its directory).
func TestPathParams(t *testing.T) {
	p := params{}
	pathParams(p, "cluster-config/production", "cluster-config/production/config.json", "", false)
	want := map[string]string{"path": "cluster-config/production", "path.basename": "production",
		"path[0]": "cluster-config", "path[1]": "production", "path.basenameNormalized": "production",
		"path.filename": "config.json", "path.filenameNormalized": "config.json"}
	if len(p) != len(want) {
		t.Errorf("params %v, want %v", p, want)
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %v, want %q", k, p[k], v)
		}
	}
	g := params{}
	pathParams(g, "app_dir/Some_App", "", "pre", true)
	pp := g["pre"].(map[string]any)["path"].(map[string]any)
	if pp["basename"] != "Some_App" || pp["basenameNormalized"] != "some-app" || len(pp["segments"].([]any)) != 2 {
		t.Errorf("go template params with a prefix: %v", g)
	}
	flat := params{}
	flattenParams("", map[string]any{"cluster": map[string]any{"name": "prod", "ports": []any{80.0, 443.0}}, "n": 1e6}, flat)
	if flat["cluster.name"] != "prod" || flat["cluster.ports.1"] != "443" || flat["n"] != "1e+06" {
		t.Errorf("flattened: %v", flat)
	}
}

func TestDirectoryMatches(t *testing.T) {
	items := []gitItem{{path: "apps/*"}, {path: "apps/legacy", exclude: true}}
	for p, want := range map[string]bool{"apps/web": true, "apps/legacy": false, "apps": false, "apps/web/sub": false, "other/web": false} {
		if got := matches(items, p); got != want {
			t.Errorf("matches(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestNormalURL(t *testing.T) {
	same := []string{"https://github.com/Example/Repo.git", "git@github.com:example/repo.git", "ssh://git@github.com/example/repo/", "https://token@github.com/example/repo", "github.com:example/repo"}
	for _, u := range same {
		if got := normalURL(u); got != "github.com/example/repo" {
			t.Errorf("normalURL(%q) = %q", u, got)
		}
	}
}

// TestTemplateBounds: a hostile template cannot make the check exhaust memory.
func TestTemplateBounds(t *testing.T) {
	r := renderer{goTemplate: true}
	for _, in := range []string{`{{ repeat 2000000000 "x" }}`, `{{ len (until 2000000000) }}`,
		`{{ len (untilStep 0 2000000000 1) }}`, `{{ range until 2000 }}{{ repeat 1000 "x" }}{{ end }}`} {
		if _, err := r.replace(in, params{}); err == nil {
			t.Errorf("%s: not refused", in)
		}
	}
	if got, err := r.replace(`{{ repeat 3 "ab" }}{{ until 3 }}`, params{}); err != nil || got != "ababab[0 1 2]" {
		t.Errorf("bounded functions: %q, %v", got, err)
	}
}

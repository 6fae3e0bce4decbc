package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func team(name, ns string, maxClusters int32) *v1alpha1.Team {
	t := &v1alpha1.Team{}
	t.APIVersion, t.Kind = v1alpha1.APIVersion, "Team"
	t.Name = name
	t.Spec.DisplayName = ns
	if maxClusters > 0 {
		t.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxClusters: &maxClusters}
	}
	return t
}

type row struct {
	Name     string `json:"name"`
	Clusters int    `json:"clusters"`
}

func doc() Doc {
	d := Doc{Header: []string{"NAME", "CLUSTERS"}, WideHeader: []string{"NAMESPACE"}, Empty: "No teams found."}
	for _, x := range []struct {
		name, ns string
		n        int32
	}{{"web", "web-ns", 10}, {"api", "api-ns", 2}, {"batch", "batch-ns", 0}} {
		d.Items = append(d.Items, Item{
			Object:    team(x.name, x.ns, x.n),
			View:      row{Name: x.name, Clusters: int(x.n)},
			Cells:     []string{x.name, strings.Repeat("x", int(x.n))},
			WideCells: []string{x.ns},
		})
	}
	return d
}

// run registers spec on a command, sets args as its flags, validates and prints d.
func run(t *testing.T, spec Spec, d Doc, args ...string) (string, string, error) {
	t.Helper()
	var o string
	cmd := &cobra.Command{Use: "list"}
	cmd.Flags().StringVarP(&o, "output", "o", "", "")
	fl := Register(cmd, &o, spec)
	if err := cmd.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := fl.Validate(cmd); err != nil {
		return "", "", err
	}
	streams, _, out, errOut := iostreams.Test()
	err := fl.Printer(streams).Print(d)
	return out.String(), errOut.String(), err
}

var listSpec = Spec{Objects: true, View: true, List: true, Wide: true, Name: true}

func TestFormats(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "NAME    CLUSTERS\nweb     xxxxxxxxxx\napi     xx\nbatch\n"},
		{[]string{"-o", "wide"}, "NAME    CLUSTERS     NAMESPACE\nweb     xxxxxxxxxx   web-ns\napi     xx           api-ns\nbatch                batch-ns\n"},
		{[]string{"--no-headers"}, "web     xxxxxxxxxx\napi     xx\nbatch\n"},
		{[]string{"-o", "name"}, "team.butler.butlerlabs.dev/web\nteam.butler.butlerlabs.dev/api\nteam.butler.butlerlabs.dev/batch\n"},
		{[]string{"-o", "jsonpath={.items[*].metadata.name}"}, "web api batch"},
		{[]string{"-o", "jsonpath={.items[*].spec.displayName}", "--sort-by", ".metadata.name"}, "api-ns batch-ns web-ns"},
		{[]string{"-o", "go-template={{range .items}}{{.metadata.name}};{{end}}"}, "web;api;batch;"},
		{[]string{"-o", "custom-columns=N:.metadata.name,MAX:.spec.resourceLimits.maxClusters", "--sort-by", "{.spec.resourceLimits.maxClusters}"}, "N       MAX\nbatch   <none>\napi     2\nweb     10\n"},
		{[]string{"-o", "jsonpath={[*].name}", "--view"}, "web api batch"},
		{[]string{"-o", "custom-columns=N:.name", "--view", "--no-headers", "--sort-by", "clusters"}, "batch\napi\nweb\n"},
	}
	for _, c := range cases {
		out, _, err := run(t, listSpec, doc(), c.args...)
		if err != nil || out != c.want {
			t.Errorf("%v:\n got %q, %v\nwant %q", c.args, out, err, c.want)
		}
	}
}

func TestJSONIsAListOfObjects(t *testing.T) {
	out, _, err := run(t, listSpec, doc(), "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind": "List"`, `"apiVersion": "v1"`, `"kind": "Team"`, `"displayName": "web-ns"`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	if strings.Contains(out, "creationTimestamp") {
		t.Errorf("unsent objects print no creationTimestamp:\n%s", out)
	}
	out, _, _ = run(t, listSpec, doc(), "-o", "yaml", "--view")
	if !strings.HasPrefix(out, "- clusters: 10\n  name: web\n") {
		t.Errorf("--view yaml is the rows:\n%s", out)
	}
}

func TestOneIsTheObjectItself(t *testing.T) {
	d := doc()
	d.Items, d.One = d.Items[:1], true
	out, _, err := run(t, Spec{Objects: true, View: true}, d, "-o", "yaml")
	if err != nil || !strings.HasPrefix(out, "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\n") {
		t.Fatalf("%q %v", out, err)
	}
	out, _, _ = run(t, Spec{Objects: true, View: true}, d, "-o", "json", "--view")
	if out != "{\n    \"name\": \"web\",\n    \"clusters\": 10\n}\n" {
		t.Fatalf("view of one: %q", out)
	}
}

func TestUnsupportedFormatIsAUsageErrorListingTheSupported(t *testing.T) {
	for _, args := range [][]string{{"-o", "wide"}, {"-o", "custom-columns=A:.a"}, {"-o", "xml"}, {"-o", "jsonpath"}, {"-o", "json=x"}} {
		_, _, err := run(t, Spec{}, Doc{}, args...)
		if cmdutil.CodeOf(err) != cmdutil.ExitUsage {
			t.Errorf("%v: want a usage error, got %v", args, err)
		}
	}
	_, _, err := run(t, Spec{}, Doc{}, "-o", "xml")
	if want := "Supported: table, json, yaml, jsonpath=…, jsonpath-file=PATH, go-template=…, go-template-file=PATH"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v\nwant %q", err, want)
	}
}

func TestSortByErrors(t *testing.T) {
	if _, _, err := run(t, listSpec, doc(), "--sort-by", "{.nope}"); cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("missing field: %v", err)
	}
	if _, _, err := run(t, listSpec, doc(), "--sort-by", "{.items[}"); cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("bad path: %v", err)
	}
}

func TestSortOrdersNumbersAndQuantitiesByValue(t *testing.T) {
	keys := []string{"10", "9", "1Gi", "512Mi", "b", "a"}
	if !less("9", "10") || !less("512Mi", "1Gi") || !less("a", "b") || less("10", "9") {
		t.Fatal(keys)
	}
}

func TestEmptyTableSaysSoOnStderr(t *testing.T) {
	out, errOut, err := run(t, listSpec, Doc{Empty: "No teams found.", Header: []string{"NAME"}})
	if err != nil || out != "" || errOut != "No teams found.\n" {
		t.Fatalf("%q %q %v", out, errOut, err)
	}
	out, _, _ = run(t, listSpec, Doc{}, "-o", "json")
	if !strings.Contains(out, `"items": []`) {
		t.Fatalf("an empty list is still a List: %q", out)
	}
}

func TestCustomColumnsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cols")
	if err := os.WriteFile(p, []byte("NAME   NS\n.metadata.name   .spec.displayName\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, listSpec, doc(), "-o", "custom-columns-file="+p, "--no-headers")
	if err != nil || out != "web     web-ns\napi     api-ns\nbatch   batch-ns\n" {
		t.Fatalf("%q %v", out, err)
	}
	if err := os.WriteFile(p, []byte("NAME\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, listSpec, doc(), "-o", "custom-columns-file="+p); cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Fatalf("one line: %v", err)
	}
}

func TestDone(t *testing.T) {
	streams, _, out, _ := iostreams.Test()
	var o string
	cmd := &cobra.Command{Use: "create"}
	fl := Register(cmd, &o, Spec{Objects: true, Name: true})
	if err := fl.Printer(streams).Done(team("web", "web-ns", 0), "team.butler.butlerlabs.dev/web created", "teams/web.yaml"); err != nil {
		t.Fatal(err)
	}
	o = "name"
	if err := fl.Printer(streams).Done(team("web", "web-ns", 0), "ignored", ""); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "team.butler.butlerlabs.dev/web created (teams/web.yaml)\nteam.butler.butlerlabs.dev/web\n" {
		t.Fatalf("%q", got)
	}
}

// The template families behave as kubectl's: missing keys print nothing, the -file forms
// read the template from a file, and a template that does not parse or a file that cannot
// be read is a usage error saying which.
func TestTemplateFamilies(t *testing.T) {
	dir := t.TempDir()
	jp, gt := filepath.Join(dir, "jp"), filepath.Join(dir, "gt")
	if err := os.WriteFile(jp, []byte(`{range .items[*]}{.metadata.name}:{.spec.missing}{"\n"}{end}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gt, []byte(`{{range .items}}{{.metadata.name}} {{end}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"-o", `jsonpath={range .items[*]}{.metadata.name}:{.spec.missing}{"\n"}{end}`}},
		{[]string{"-o", "jsonpath-file=" + jp}},
	} {
		out, _, err := run(t, listSpec, doc(), c.args...)
		if err != nil || out != "web:\napi:\nbatch:\n" {
			t.Errorf("%v: %q %v", c.args, out, err)
		}
	}
	for _, args := range [][]string{{"-o", "go-template={{range .items}}{{.metadata.name}} {{end}}"}, {"-o", "go-template-file=" + gt}} {
		out, _, err := run(t, listSpec, doc(), args...)
		if err != nil || out != "web api batch " {
			t.Errorf("%v: %q %v", args, out, err)
		}
	}
	out, _, err := run(t, listSpec, doc(), "--view", "-o", "jsonpath={[1].name}={[1].clusters}")
	if err != nil || out != "api=2" {
		t.Errorf("jsonpath over the view: %q %v", out, err)
	}
	for _, c := range []struct{ arg, want string }{
		{"jsonpath={.items[", "-o jsonpath: error parsing jsonpath {.items[, "},
		{"go-template={{.x", "-o go-template: error parsing template {{.x, "},
		{"jsonpath-file=" + filepath.Join(dir, "none"), "-o jsonpath-file: error reading --template " + filepath.Join(dir, "none") + ", "},
	} {
		_, _, err := run(t, listSpec, doc(), "-o", c.arg)
		if cmdutil.CodeOf(err) != cmdutil.ExitUsage || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("-o %s: want a usage error starting %q, got %v", c.arg, c.want, err)
		}
	}
}

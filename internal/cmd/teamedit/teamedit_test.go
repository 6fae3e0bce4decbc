package teamedit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func usage(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want usage error containing %q, got nil", want)
	}
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("exit code %d, want %d (%v)", cmdutil.CodeOf(err), cmdutil.ExitUsage, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

func TestParseUserGrant(t *testing.T) {
	u, err := ParseUserGrant(" Alice@Example.com :Admin", false)
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "alice@example.com" || u.Role != v1alpha1.RoleAdmin {
		t.Errorf("got %+v", u)
	}
	u, err = ParseUserGrant("a@x:", true)
	if err != nil || u.Role != "" || u.Name != "a@x" {
		t.Errorf("clear: got %+v, %v", u, err)
	}
	_, err = ParseUserGrant("a@x:", false)
	usage(t, err, `--access-user "a@x:": a role is required (valid: admin, operator, viewer)`)
	_, err = ParseUserGrant("a@x", false)
	usage(t, err, `want EMAIL:ROLE`)
	_, err = ParseUserGrant("a@x:owner", false)
	usage(t, err, `unknown role "owner"`)
	_, err = ParseUserGrant(":admin", false)
	usage(t, err, `the e-mail is empty`)
}

func TestParseGroupGrant(t *testing.T) {
	g, err := ParseGroupGrant("CN=Devs,OU=x:operator:okta", false)
	if err != nil {
		t.Fatal(err)
	}
	want := GroupGrant{Name: "CN=Devs,OU=x", Role: v1alpha1.RoleOperator, IdentityProvider: "okta", Flag: "CN=Devs,OU=x:operator:okta"}
	if g != want {
		t.Errorf("got %+v, want %+v", g, want)
	}
	g, err = ParseGroupGrant("devs::okta", true)
	if err != nil || g.Role != "" || g.IdentityProvider != "okta" {
		t.Errorf("clear: got %+v, %v", g, err)
	}
	_, err = ParseGroupGrant("devs", false)
	usage(t, err, "want NAME:ROLE[:IDENTITY-PROVIDER]")
}

func TestParseAccessDuplicates(t *testing.T) {
	_, _, err := ParseAccess([]string{"a@x:admin", "A@X:viewer"}, nil, false)
	usage(t, err, `--access-user: "a@x" is given more than once`)
	_, _, err = ParseAccess(nil, []string{"devs:admin:okta", "devs:viewer:okta"}, false)
	usage(t, err, `--access-group: "devs" (identity provider "okta") is given more than once`)
	// The same group from two providers is two entries.
	_, gs, err := ParseAccess(nil, []string{"devs:admin:okta", "devs:viewer:ldap", "devs:viewer"}, false)
	if err != nil || len(gs) != 3 {
		t.Errorf("got %v, %v", gs, err)
	}
}

func TestApplyAccess(t *testing.T) {
	a := &v1alpha1.TeamAccess{
		Users:  []v1alpha1.TeamUser{{Name: "Bob@example.com", Role: "operator"}, {Name: "carol@example.com", Role: "viewer"}},
		Groups: []v1alpha1.TeamGroup{{Name: "devs", Role: "viewer", IdentityProvider: "okta"}},
	}
	ApplyAccess(a,
		[]UserGrant{{Name: "bob@example.com", Role: "admin"}, {Name: "carol@example.com"}, {Name: "dan@example.com", Role: "viewer"}, {Name: "nobody@example.com"}},
		[]GroupGrant{{Name: "devs", IdentityProvider: "okta"}, {Name: "ops", Role: "operator"}})
	want := &v1alpha1.TeamAccess{
		Users:  []v1alpha1.TeamUser{{Name: "Bob@example.com", Role: "admin"}, {Name: "dan@example.com", Role: "viewer"}},
		Groups: []v1alpha1.TeamGroup{{Name: "ops", Role: "operator"}},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	ApplyAccess(a, []UserGrant{{Name: "bob@example.com"}, {Name: "dan@example.com"}}, []GroupGrant{{Name: "ops"}})
	if PruneAccess(a) != nil {
		t.Errorf("emptied access should prune to nil, got %+v", a)
	}
}

func TestParseClusterDefault(t *testing.T) {
	for _, c := range []struct {
		in   string
		want DefaultSetting
	}{
		{"kubernetesVersion=1.31.2", DefaultSetting{Key: "kubernetesVersion", Version: "v1.31.2"}},
		{"workercount=3", DefaultSetting{Key: "workerCount", Int: 3}},
		{"workerCount=0", DefaultSetting{Key: "workerCount", Int: 0}},
		{"workerDiskGi=10", DefaultSetting{Key: "workerDiskGi", Int: 10}},
		{"defaultAddons=cert-manager, metrics-server,,cert-manager", DefaultSetting{Key: "defaultAddons", Addons: []string{"cert-manager", "metrics-server"}}},
	} {
		got, err := ParseClusterDefault(c.in, false)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"workerCPU":                "want KEY=VALUE",
		"colour=blue":              `unknown key "colour"`,
		"workerCPU=two":            "workerCPU must be a whole number (int32)",
		"workerCPU=3000000000":     "workerCPU must be a whole number (int32)",
		"workerCPU=0":              "workerCPU must be at least 1",
		"workerDiskGi=9":           "workerDiskGi must be at least 10",
		"workerCount=-1":           "workerCount must be at least 0",
		"kubernetesVersion=1.31":   "invalid Kubernetes version",
		"workerCount=":             "the value is empty",
		"defaultAddons= , ":        "no addon named",
		"defaultAddons=a,,":        "", // accepted
		"kubernetesVersion=v1.x.0": "invalid Kubernetes version",
	} {
		_, err := ParseClusterDefault(in, false)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", in, err)
			}
			continue
		}
		usage(t, err, want)
	}
	d, err := ParseClusterDefault("workerCount=", true)
	if err != nil || !d.Clear {
		t.Errorf("clear: %+v, %v", d, err)
	}
	_, err = ParseClusterDefaults([]string{"workerCount=1", "workercount=2"}, false)
	usage(t, err, "--cluster-default: workerCount is given more than once")
}

func TestApplyClusterDefaultsPrunes(t *testing.T) {
	three := int32(3)
	cd := &v1alpha1.ClusterDefaults{WorkerCount: &three, DefaultAddons: []string{"a"}}
	ApplyClusterDefaults(cd, []DefaultSetting{{Key: "workerCount", Clear: true}, {Key: "defaultAddons", Clear: true}})
	if PruneClusterDefaults(cd) != nil {
		t.Errorf("want nil, got %+v", cd)
	}
}

func TestLimitFlags(t *testing.T) {
	parse := func(args ...string) (LimitsPatch, error) {
		var l LimitFlags
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		l.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return l.Parse(fs)
	}
	p, err := parse("--max-clusters", "0", "--max-memory", "512Gi")
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxClusters == nil || *p.MaxClusters != 0 || p.MaxMemory.String() != "512Gi" || p.MaxCPUCores != nil || p.Empty() {
		t.Errorf("got %+v", p)
	}
	rl := &v1alpha1.TeamResourceLimits{}
	p.ApplyTo(rl)
	if rl.MaxClusters == nil || rl.MaxMemory == nil || rl.MaxStorage != nil {
		t.Errorf("applied %+v", rl)
	}
	if p, _ := parse(); !p.Empty() {
		t.Error("no flags should be empty")
	}
	_, err = parse("--max-total-nodes", "-1")
	usage(t, err, "--max-total-nodes must be 0 or more, got -1")
	_, err = parse("--max-cpu=-2")
	usage(t, err, `--max-cpu must be 0 or more, got "-2"`)
	_, err = parse("--max-storage", "lots")
	usage(t, err, `--max-storage: "lots" is not a quantity such as 2Ti`)
}

func TestFindEnvironment(t *testing.T) {
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "Dev"}, {Name: "dev"}, {Name: "prod"}}}}
	for name, want := range map[string]int{"dev": 1, "Dev": 0, "DEV": 0, "PROD": 2, "qa": -1} {
		if got := FindEnvironment(team, name); got != want {
			t.Errorf("%s: got %d, want %d", name, got, want)
		}
	}
}

package policy_test

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestNormalizeVersion(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"v1.31.0", "v1.31.0", ""},
		{"1.30.4", "v1.30.4", ""},
		{"V1.29.10", "v1.29.10", ""},
		{"  v1.31.0\n", "v1.31.0", ""},
		{"v10.0.0", "v10.0.0", ""},
		{"1.30", "", `invalid Kubernetes version "1.30": want X.Y.Z, for example v1.31.0`},
		{"1.30.x", "", `invalid Kubernetes version "1.30.x": want X.Y.Z, for example v1.31.0`},
		{"v1.30.4-rc.1", "", `invalid Kubernetes version "v1.30.4-rc.1": want X.Y.Z, for example v1.31.0`},
		{"1..4", "", `invalid Kubernetes version "1..4": want X.Y.Z, for example v1.31.0`},
		{"vv1.30.4", "", `invalid Kubernetes version "vv1.30.4": want X.Y.Z, for example v1.31.0`},
		{"1.30.4.1", "", `invalid Kubernetes version "1.30.4.1": want X.Y.Z, for example v1.31.0`},
		{"+1.30.4", "", `invalid Kubernetes version "+1.30.4": want X.Y.Z, for example v1.31.0`},
		{"", "", `invalid Kubernetes version "": want X.Y.Z, for example v1.31.0`},
	}
	for _, tt := range tests {
		got, err := policy.NormalizeVersion(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("NormalizeVersion(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeVersion(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestErrNoKubernetesVersion(t *testing.T) {
	const want = "no Kubernetes version: set clusterDefaults.kubernetesVersion on the team or the environment"
	if policy.ErrNoKubernetesVersion.Error() != want {
		t.Errorf("got %q", policy.ErrNoKubernetesVersion)
	}
}

// exShape is a Defaults flattened to strings so tables compare quantities by their text.
type exShape struct {
	Version, Count, CPU, Memory, Disk string
	Sources                           map[string]policy.Source
}

func exFlatten(d policy.Defaults) exShape {
	return exShape{
		Version: d.KubernetesVersion,
		Count:   exItoa(d.WorkerCount),
		CPU:     exItoa(d.WorkerCPU),
		Memory:  d.WorkerMemory.String(),
		Disk:    d.WorkerDisk.String(),
		Sources: d.Sources,
	}
}

func exItoa(v int32) string { return resource.NewQuantity(int64(v), resource.DecimalSI).String() }

func TestResolveDefaultsWorkedExample(t *testing.T) {
	team := exPayments()
	tests := []struct {
		env  string
		want exShape
	}{
		{"dev", exShape{"v1.31.0", "2", "2", "2Gi", "100Gi", map[string]policy.Source{
			"kubernetesVersion": "team", "workerCount": "team", "workerCPU": "team", "workerMemoryGi": "env", "workerDiskGi": "built-in"}}},
		{"prod", exShape{"v1.31.0", "3", "4", "8Gi", "100Gi", map[string]policy.Source{
			"kubernetesVersion": "team", "workerCount": "env", "workerCPU": "env", "workerMemoryGi": "env", "workerDiskGi": "built-in"}}},
		// No environment: the team's defaults alone.
		{"", exShape{"v1.31.0", "2", "2", "4Gi", "100Gi", map[string]policy.Source{
			"kubernetesVersion": "team", "workerCount": "team", "workerCPU": "team", "workerMemoryGi": "team", "workerDiskGi": "built-in"}}},
		// An environment the team does not define contributes nothing.
		{"staging", exShape{"v1.31.0", "2", "2", "4Gi", "100Gi", map[string]policy.Source{
			"kubernetesVersion": "team", "workerCount": "team", "workerCPU": "team", "workerMemoryGi": "team", "workerDiskGi": "built-in"}}},
	}
	for _, tt := range tests {
		t.Run("env="+tt.env, func(t *testing.T) {
			d, err := policy.ResolveDefaults(team, tt.env, policy.Explicit{})
			if err != nil {
				t.Fatal(err)
			}
			if got := exFlatten(d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if len(d.Addons) != 0 || len(d.AddonSources) != 0 {
				t.Errorf("addons %v %v", d.Addons, d.AddonSources)
			}
		})
	}
}

func TestResolveDefaultsPrecedence(t *testing.T) {
	limits := func() *v1alpha1.TeamResourceLimits {
		return &v1alpha1.TeamResourceLimits{DefaultNodeCount: exI32(3), DefaultCPUPerNode: exQty("1500m"), DefaultMemoryPerNode: exQty("12Gi")}
	}
	cd := func(v string, n, cpu, mem, disk int32) *v1alpha1.ClusterDefaults {
		return &v1alpha1.ClusterDefaults{KubernetesVersion: v, WorkerCount: exI32(n), WorkerCPU: exI32(cpu), WorkerMemoryGi: exI32(mem), WorkerDiskGi: exI32(disk)}
	}
	mk := func(teamCD, envCD *v1alpha1.ClusterDefaults, l *v1alpha1.TeamResourceLimits) *v1alpha1.Team {
		return &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: v1alpha1.TeamSpec{
			ClusterDefaults: teamCD, ResourceLimits: l,
			Environments: []v1alpha1.EnvironmentSpec{{Name: "e", ClusterDefaults: envCD}},
		}}
	}
	all := func(s policy.Source) map[string]policy.Source {
		return map[string]policy.Source{"kubernetesVersion": s, "workerCount": s, "workerCPU": s, "workerMemoryGi": s, "workerDiskGi": s}
	}
	explicit := policy.Explicit{KubernetesVersion: "1.32.1", WorkerCount: exI32(5), WorkerCPU: exI32(6), WorkerMemory: exQty("7Gi"), WorkerDisk: exQty("80Gi")}

	tests := []struct {
		name     string
		team     *v1alpha1.Team
		env      string
		explicit policy.Explicit
		want     exShape
	}{
		{"explicit beats everything", mk(cd("v1.30.0", 2, 2, 2, 20), cd("v1.31.0", 3, 3, 3, 30), limits()), "e", explicit,
			exShape{"v1.32.1", "5", "6", "7Gi", "80Gi", all("explicit")}},
		{"env beats team", mk(cd("v1.30.0", 2, 2, 2, 20), cd("1.31.0", 3, 3, 3, 30), limits()), "e", policy.Explicit{},
			exShape{"v1.31.0", "3", "3", "3Gi", "30Gi", all("env")}},
		{"team beats limits", mk(cd("1.30.0", 2, 2, 2, 20), nil, limits()), "e", policy.Explicit{},
			exShape{"v1.30.0", "2", "2", "2Gi", "20Gi", all("team")}},
		{"env ignored without env name", mk(cd("v1.30.0", 2, 2, 2, 20), cd("v1.31.0", 3, 3, 3, 30), nil), "", policy.Explicit{},
			exShape{"v1.30.0", "2", "2", "2Gi", "20Gi", all("team")}},
		{"env names are exact", mk(cd("v1.30.0", 2, 2, 2, 20), cd("v1.31.0", 3, 3, 3, 30), nil), "E", policy.Explicit{},
			exShape{"v1.30.0", "2", "2", "2Gi", "20Gi", all("team")}},
		{"team limits, cpu rounded up", mk(nil, nil, limits()), "e", policy.Explicit{},
			exShape{"", "3", "2", "12Gi", "100Gi", map[string]policy.Source{"workerCount": "team limits", "workerCPU": "team limits", "workerMemoryGi": "team limits", "workerDiskGi": "built-in"}}},
		{"built-in", mk(nil, nil, nil), "e", policy.Explicit{},
			exShape{"", "1", "4", "16Gi", "100Gi", map[string]policy.Source{"workerCount": "built-in", "workerCPU": "built-in", "workerMemoryGi": "built-in", "workerDiskGi": "built-in"}}},
		{"nil team: explicit and built-in only", nil, "e", policy.Explicit{KubernetesVersion: "v1.31.0", WorkerCount: exI32(2)},
			exShape{"v1.31.0", "2", "4", "16Gi", "100Gi", map[string]policy.Source{"kubernetesVersion": "explicit", "workerCount": "explicit", "workerCPU": "built-in", "workerMemoryGi": "built-in", "workerDiskGi": "built-in"}}},
		// 0 versus unset: a 0 in clusterDefaults or defaultNodeCount is unset and falls through;
		// an explicit 0 is what the user asked for.
		{"zeros fall through to team", mk(cd("v1.30.0", 2, 2, 2, 20), cd("", 0, 0, 0, 0), nil), "e", policy.Explicit{},
			exShape{"v1.30.0", "2", "2", "2Gi", "20Gi", all("team")}},
		{"zeros fall through to limits", mk(cd("", 0, 0, 0, 0), nil, limits()), "e", policy.Explicit{},
			exShape{"", "3", "2", "12Gi", "100Gi", map[string]policy.Source{"workerCount": "team limits", "workerCPU": "team limits", "workerMemoryGi": "team limits", "workerDiskGi": "built-in"}}},
		{"zero limits fall through to built-in", mk(nil, nil, &v1alpha1.TeamResourceLimits{DefaultNodeCount: exI32(0), DefaultCPUPerNode: exQty("0"), DefaultMemoryPerNode: exQty("0")}), "", policy.Explicit{},
			exShape{"", "1", "4", "16Gi", "100Gi", map[string]policy.Source{"workerCount": "built-in", "workerCPU": "built-in", "workerMemoryGi": "built-in", "workerDiskGi": "built-in"}}},
		{"explicit zero stays", mk(cd("v1.30.0", 2, 2, 2, 20), nil, nil), "", policy.Explicit{WorkerCount: exI32(0), WorkerCPU: exI32(0)},
			exShape{"v1.30.0", "0", "0", "2Gi", "20Gi", map[string]policy.Source{"kubernetesVersion": "team", "workerCount": "explicit", "workerCPU": "explicit", "workerMemoryGi": "team", "workerDiskGi": "team"}}},
		{"whitespace explicit version is unset", mk(cd("v1.30.0", 2, 2, 2, 20), nil, nil), "", policy.Explicit{KubernetesVersion: "  "},
			exShape{"v1.30.0", "2", "2", "2Gi", "20Gi", all("team")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := policy.ResolveDefaults(tt.team, tt.env, tt.explicit)
			if err != nil {
				t.Fatal(err)
			}
			if got := exFlatten(d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestResolveDefaultsCPURounding(t *testing.T) {
	for q, want := range map[string]int32{"500m": 1, "1": 1, "1001m": 2, "2": 2, "2.5": 3, "8": 8} {
		team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{ResourceLimits: &v1alpha1.TeamResourceLimits{DefaultCPUPerNode: exQty(q)}}}
		d, err := policy.ResolveDefaults(team, "", policy.Explicit{})
		if err != nil || d.WorkerCPU != want || d.Sources["workerCPU"] != policy.SourceTeamLimits {
			t.Errorf("defaultCPUPerNode %s: cpu %d (%s), %v; want %d", q, d.WorkerCPU, d.Sources["workerCPU"], err, want)
		}
	}
}

func TestResolveDefaultsQuantityForm(t *testing.T) {
	d, err := policy.ResolveDefaults(exPayments(), "prod", policy.Explicit{})
	if err != nil {
		t.Fatal(err)
	}
	// Written <N>Gi, equal to what resource.MustParse gives for the same text.
	if d.WorkerMemory.String() != "8Gi" || d.WorkerMemory.Cmp(resource.MustParse("8Gi")) != 0 {
		t.Errorf("memory %s", d.WorkerMemory.String())
	}
}

func TestResolveDefaultsVersionErrors(t *testing.T) {
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}, Spec: v1alpha1.TeamSpec{
		ClusterDefaults: &v1alpha1.ClusterDefaults{KubernetesVersion: "1.30"},
		Environments: []v1alpha1.EnvironmentSpec{
			{Name: "dev", ClusterDefaults: &v1alpha1.ClusterDefaults{KubernetesVersion: "latest"}},
			{Name: "ok", ClusterDefaults: &v1alpha1.ClusterDefaults{KubernetesVersion: "1.31.2"}},
		},
	}}
	tests := []struct {
		name, env string
		explicit  string
		wantErr   string
		wantV     string
	}{
		{"explicit malformed", "", "1.31", `invalid Kubernetes version "1.31": want X.Y.Z, for example v1.31.0`, ""},
		{"env malformed", "dev", "", `environment "dev" clusterDefaults.kubernetesVersion: invalid Kubernetes version "latest": want X.Y.Z, for example v1.31.0`, ""},
		{"team malformed", "", "", `team "payments" clusterDefaults.kubernetesVersion: invalid Kubernetes version "1.30": want X.Y.Z, for example v1.31.0`, ""},
		{"a malformed lower level is not consulted", "ok", "", "", "v1.31.2"},
		{"explicit hides malformed levels", "dev", "v1.29.0", "", "v1.29.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := policy.ResolveDefaults(team, tt.env, policy.Explicit{KubernetesVersion: tt.explicit})
			if tt.wantErr != "" {
				var ve *policy.VersionError
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &ve) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || d.KubernetesVersion != tt.wantV {
				t.Errorf("got %q, %v; want %q", d.KubernetesVersion, err, tt.wantV)
			}
		})
	}
}

func TestResolveDefaultsNoVersion(t *testing.T) {
	d, err := policy.ResolveDefaults(&v1alpha1.Team{}, "", policy.Explicit{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Sources["kubernetesVersion"]; ok || d.KubernetesVersion != "" {
		t.Errorf("version %q source %q", d.KubernetesVersion, d.Sources["kubernetesVersion"])
	}
}

func TestResolveDefaultsAddons(t *testing.T) {
	mk := func(teamAddons, envAddons []string) *v1alpha1.Team {
		t := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}}}}
		if teamAddons != nil {
			t.Spec.ClusterDefaults = &v1alpha1.ClusterDefaults{DefaultAddons: teamAddons}
		}
		if envAddons != nil {
			t.Spec.Environments[0].ClusterDefaults = &v1alpha1.ClusterDefaults{DefaultAddons: envAddons}
		}
		return t
	}
	tests := []struct {
		name        string
		team        *v1alpha1.Team
		env         string
		want        []string
		wantSources map[string]policy.Source
		wantField   policy.Source
	}{
		{"merge keeps order, drops duplicates", mk([]string{"cert-manager", "traefik", "cert-manager"}, []string{"traefik", "longhorn", " "}), "dev",
			[]string{"cert-manager", "traefik", "longhorn"},
			map[string]policy.Source{"cert-manager": "team", "traefik": "team", "longhorn": "env"}, "team, env"},
		{"team only", mk([]string{"a", "b"}, nil), "dev", []string{"a", "b"}, map[string]policy.Source{"a": "team", "b": "team"}, "team"},
		{"env only", mk(nil, []string{"x"}), "dev", []string{"x"}, map[string]policy.Source{"x": "env"}, "env"},
		{"env addons that repeat the team's", mk([]string{"a"}, []string{"a"}), "dev", []string{"a"}, map[string]policy.Source{"a": "team"}, "team"},
		{"no env selected", mk([]string{"a"}, []string{"x"}), "", []string{"a"}, map[string]policy.Source{"a": "team"}, "team"},
		{"none", mk(nil, nil), "dev", nil, map[string]policy.Source{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := policy.ResolveDefaults(tt.team, tt.env, policy.Explicit{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Addons, tt.want) || !reflect.DeepEqual(d.AddonSources, tt.wantSources) {
				t.Errorf("addons %q %v, want %q %v", d.Addons, d.AddonSources, tt.want, tt.wantSources)
			}
			got, ok := d.Sources["defaultAddons"]
			if got != tt.wantField || ok != (tt.wantField != "") {
				t.Errorf("Sources[defaultAddons] = %q (%v), want %q", got, ok, tt.wantField)
			}
		})
	}
}

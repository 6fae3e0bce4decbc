package create

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// A value the configuration fills (Value.Set, with or without pflag's Changed) is a given
// setting; a flag of another provider type that only the configuration set is ignored,
// not refused.
func TestSettingsGivenWithoutChanged(t *testing.T) {
	o := &Options{Name: "nx", Provider: v1alpha1.ProviderNutanix, settings: settings()}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, st := range o.settings {
		st.register(fs)
	}
	if err := fs.Parse([]string{"--insecure", "--pool", "a:1"}); err != nil {
		t.Fatal(err)
	}
	// As a configuration file would, without marking the flags changed.
	for name, v := range map[string]string{"port": "9441", "region": "us-east-1", "endpoint": "https://pc:9440"} {
		if err := fs.Lookup(name).Value.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	cmd := &cobra.Command{}
	cmd.Flags().AddFlagSet(fs)
	if err := o.checkFlags(cmd); err != nil {
		t.Fatal(err)
	}
	var s v1alpha1.ProviderConfigSpec
	if err := o.apply(&s); err != nil {
		t.Fatal(err)
	}
	n := s.Nutanix
	if n == nil || n.Port == nil || *n.Port != 9441 || n.Endpoint != "https://pc:9440" || n.Insecure == nil || !*n.Insecure {
		t.Fatalf("nutanix section %+v", n)
	}
	if s.AWS != nil || s.GCP != nil {
		t.Fatalf("a region from the configuration made a section of another provider: %+v", s)
	}
	if s.Network == nil || s.Network.Mode != v1alpha1.NetworkModeIPAM || len(s.Network.PoolRefs) != 1 || *s.Network.PoolRefs[0].Priority != 1 {
		t.Fatalf("network %+v", s.Network)
	}
	if s.Limits != nil || s.Network.LoadBalancer != nil {
		t.Fatalf("settings not given were written: %+v", s)
	}
}

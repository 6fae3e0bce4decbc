package policy_test

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestVersionAllowed(t *testing.T) {
	allowed := []string{"1.29.x", "1.30.4"}
	for _, c := range []struct {
		v    string
		list []string
		want bool
	}{
		{"v1.29.0", allowed, true}, {"v1.29.13", allowed, true}, {"1.29.2", allowed, true},
		{"v1.30.4", allowed, true}, {"1.30.4", allowed, true}, {"v1.30.5", allowed, false},
		{"v1.31.0", allowed, false}, {"v1.2.9", allowed, false}, {"v1.290.1", allowed, false},
		{"v1.29", allowed, false}, {"", allowed, false}, {"v1.29.", allowed, false},
		{"v1.30.4", []string{"v1.30.4"}, true}, {"1.30.4", []string{" V1.30.4 "}, true},
		{"v1.29.3", []string{"v1.29.X"}, true}, {"v1.29.3", []string{"1.29.*"}, true},
		{"v1.29.3", []string{"1.29"}, true}, {"v1.30.0", []string{"1.x.x"}, true},
		{"v1.31.0", nil, true}, {"anything", []string{}, true}, {"v1.29.3", []string{""}, false},
	} {
		if got := policy.VersionAllowed(c.v, c.list); got != c.want {
			t.Errorf("VersionAllowed(%q, %q) = %v, want %v", c.v, c.list, got, c.want)
		}
	}
}

func TestAddonAllowed(t *testing.T) {
	for _, c := range []struct {
		addon           string
		allowed, denied []string
		want            bool
	}{
		{"cilium", nil, nil, true},
		{"cilium", []string{"cilium", "istio"}, nil, true},
		{"Cilium", []string{"cilium"}, nil, true},
		{"longhorn", []string{"cilium"}, nil, false},
		{"istio", []string{"cilium", "istio"}, []string{"istio"}, false}, // denied wins
		{"istio", nil, []string{"Istio"}, false},
		{"istio@1.22.0", nil, []string{"istio"}, false},
		{"cert-manager@v1.14", []string{"cert-manager"}, nil, true},
		{"traefik", nil, []string{"istio"}, true},
	} {
		if got := policy.AddonAllowed(c.addon, c.allowed, c.denied); got != c.want {
			t.Errorf("AddonAllowed(%q, %q, %q) = %v, want %v", c.addon, c.allowed, c.denied, got, c.want)
		}
	}
}

func TestProviderAllowed(t *testing.T) {
	for _, c := range []struct {
		p    string
		list []string
		want bool
	}{
		{"harvester", nil, true}, {"harvester", []string{"nutanix", "harvester"}, true},
		{"harvester", []string{"Harvester"}, true}, {"proxmox", []string{"nutanix", "harvester"}, false},
		{"", []string{"nutanix"}, false},
	} {
		if got := policy.ProviderAllowed(c.p, c.list); got != c.want {
			t.Errorf("ProviderAllowed(%q, %q) = %v, want %v", c.p, c.list, got, c.want)
		}
	}
}

// Package clusterview prints tenant clusters the same way in list and get: a table
// (wide adds sizes, provider and owner; either may end with the write state, WRITES),
// JSON, YAML or names.
package clusterview

import (
	"fmt"
	"strconv"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Print writes clusters per -o; withNamespace adds a NAMESPACE column. writes, when not
// nil, adds a last column WRITES to the tables: each cluster's write state by
// controlplane.Key (the commands read it, controlplane.States).
func Print(f *factory.Factory, clusters []v1alpha1.TenantCluster, withNamespace bool, writes map[string]string) error {
	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		items := make([]any, 0, len(clusters))
		for i := range clusters {
			m, err := printers.Clean(withTypeMeta(clusters[i]))
			if err != nil {
				return err
			}
			items = append(items, m)
		}
		return printers.Print(out, f.Options.Output, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	case "name":
		for _, c := range clusters {
			fmt.Fprintf(out, "tenantcluster.butler.butlerlabs.dev/%s\n", c.Name)
		}
		return nil
	}
	wide := f.Options.Output == "wide"
	header := []string{"NAME", "TEAM", "ENVIRONMENT", "PHASE", "VERSION", "WORKERS", "AGE"}
	if withNamespace {
		header = append([]string{"NAMESPACE"}, header...)
	}
	if wide {
		header = append(header, "CPU", "MEMORY", "DISK", "PROVIDER", "OWNER")
	}
	if writes != nil {
		header = append(header, "WRITES")
	}
	t := printers.NewTable(f.IOStreams.ColorEnabled(), header...)
	now := f.Now()
	for _, c := range clusters {
		row := []string{c.Name, printers.Dash(c.TeamName()), printers.Dash(c.Environment()), printers.Dash(c.Status.Phase), c.Spec.KubernetesVersion, workers(c), age(c, now)}
		if withNamespace {
			row = append([]string{c.Namespace}, row...)
		}
		if wide {
			mt := c.Spec.Workers.MachineTemplate
			row = append(row, strconv.Itoa(int(mt.CPU)), mt.Memory.String(), mt.DiskSize.String(), provider(c), printers.Dash(Owner(c)))
		}
		if writes != nil {
			row = append(row, printers.Dash(writes[controlplane.Key(&c)]))
		}
		t.Row(row...)
	}
	return t.Render(out)
}

// PrintOne writes a single cluster: the object itself for json/yaml.
func PrintOne(f *factory.Factory, c *v1alpha1.TenantCluster, writes map[string]string) error {
	switch f.Options.Output {
	case "json", "yaml":
		m, err := printers.Clean(withTypeMeta(*c))
		if err != nil {
			return err
		}
		return printers.Print(f.IOStreams.Out, f.Options.Output, m)
	}
	return Print(f, []v1alpha1.TenantCluster{*c}, false, writes)
}

func withTypeMeta(c v1alpha1.TenantCluster) *v1alpha1.TenantCluster {
	c.APIVersion, c.Kind = v1alpha1.APIVersion, v1alpha1.KindTenantCluster
	return &c
}

// Owner is the owner annotation, else the creator.
func Owner(c v1alpha1.TenantCluster) string {
	if o := c.Annotations[v1alpha1.AnnotationOwner]; o != "" {
		return o
	}
	return c.Annotations[v1alpha1.AnnotationCreatorEmail]
}

func workers(c v1alpha1.TenantCluster) string {
	ready := c.Status.WorkerNodesReady
	if c.Status.ObservedState != nil && c.Status.ObservedState.Workers != nil {
		ready = c.Status.ObservedState.Workers.Ready
	}
	return fmt.Sprintf("%d/%d", ready, c.Spec.Workers.Replicas)
}

func provider(c v1alpha1.TenantCluster) string {
	r := c.Spec.ProviderConfigRef
	if r == nil {
		return "-"
	}
	ns := r.Namespace
	if ns == "" {
		ns = v1alpha1.DefaultProviderNamespace
	}
	return ns + "/" + r.Name
}

func age(c v1alpha1.TenantCluster, now time.Time) string {
	if c.CreationTimestamp.IsZero() {
		return "-"
	}
	return HumanDuration(now.Sub(c.CreationTimestamp.Time))
}

// HumanDuration prints an age as kubectl does, in s, m, h or d.
func HumanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

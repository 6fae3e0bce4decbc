// Package clusterview shows tenant clusters the same way in list and get: the objects for
// the structured formats, a row each for the table (wide adds sizes, provider, owner and
// the write state, WRITES).
package clusterview

import (
	"fmt"
	"strconv"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what cluster list prints; get prints the same without the list flags.
var Spec = output.Spec{Objects: true, List: true, Wide: true, Name: true}

// Doc is clusters for the printer: the TenantClusters themselves for the structured
// formats, a row each for the table (wide adds sizes, provider and owner). withNamespace
// adds a NAMESPACE column. writes, when not nil, adds a column WRITES, each cluster's write
// state by controlplane.Key (the commands read it, controlplane.States): last of the wide
// columns, or with writesInTable last of the table's.
//
// A TTL column (the time left, clusterttl.Left) comes after AGE when one of clusters has
// an expiry.
func Doc(clusters []v1alpha1.TenantCluster, withNamespace bool, writes map[string]string, writesInTable bool, now time.Time) output.Doc {
	return doc(clusters, withNamespace, writes, writesInTable, now, clusterttl.Any(clusters))
}

// Rows is Doc for output printed a few rows at a time under one header (a watch, pages on
// a terminal): its columns cannot depend on the rows, so it has no TTL column.
func Rows(clusters []v1alpha1.TenantCluster, withNamespace bool, now time.Time) output.Doc {
	return doc(clusters, withNamespace, nil, false, now, false)
}

func doc(clusters []v1alpha1.TenantCluster, withNamespace bool, writes map[string]string, writesInTable bool, now time.Time, ttl bool) output.Doc {
	d := output.Doc{
		Header:     []string{"NAME", "TEAM", "ENVIRONMENT", "PHASE", "VERSION", "WORKERS", "AGE"},
		WideHeader: []string{"CPU", "MEMORY", "DISK", "PROVIDER", "OWNER"},
		Empty:      "No tenant clusters found.",
	}
	if withNamespace {
		d.Header = append([]string{"NAMESPACE"}, d.Header...)
		d.Drop = []string{"TEAM"} // on a narrow terminal: the namespace names the team
	}
	if ttl {
		d.Header = append(d.Header, "TTL")
	}
	switch {
	case writes != nil && writesInTable:
		d.Header = append(d.Header, "WRITES")
	case writes != nil:
		d.WideHeader = append(d.WideHeader, "WRITES")
	}
	for i := range clusters {
		c := clusters[i]
		row := []string{c.Name, tables.Dash(c.TeamName()), tables.Dash(c.Environment()), phase(c), c.Spec.KubernetesVersion, workers(c), age(c, now)}
		if withNamespace {
			row = append([]string{c.Namespace}, row...)
		}
		if ttl {
			row = append(row, clusterttl.Left(&c, now, HumanDuration))
		}
		mt := c.Spec.Workers.MachineTemplate
		wide := []string{strconv.Itoa(int(mt.CPU)), mt.Memory.String(), mt.DiskSize.String(), provider(c), tables.Dash(Owner(c))}
		if w := tables.Dash(writes[controlplane.Key(&c)]); writes != nil && writesInTable {
			row = append(row, w)
		} else if writes != nil {
			wide = append(wide, w)
		}
		d.Items = append(d.Items, output.Item{Object: WithTypeMeta(c), Cells: row, WideCells: wide})
	}
	return d
}

// WithTypeMeta returns c with its apiVersion and kind set, as printed.
func WithTypeMeta(c v1alpha1.TenantCluster) *v1alpha1.TenantCluster {
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

// reported is whether the cluster has a status at all: manifests carry none, and a cluster
// just created has none until the controller reports. Without one, phase and ready
// workers are unknown, not Pending and 0.
func reported(c v1alpha1.TenantCluster) bool {
	st := c.Status
	return st.Phase != "" || st.ObservedGeneration != 0 || len(st.Conditions) > 0 || st.ObservedState != nil
}

// phase is the status's phase; "unknown" when there is no status.
func phase(c v1alpha1.TenantCluster) string {
	if !reported(c) {
		return "unknown"
	}
	return tables.Dash(c.Status.Phase)
}

// workers is ready/desired; "?/N" when there is no status to count ready ones from.
func workers(c v1alpha1.TenantCluster) string {
	if !reported(c) {
		return fmt.Sprintf("?/%d", c.Spec.Workers.Replicas)
	}
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

// Table is Doc for the table alone, built a page of clusters at a time: it keeps each
// cluster's row and not the cluster, so a list of many clusters printed as a table holds
// their rows only. Not for the formats that print objects, nor wide (its WRITES column
// reads the whole list).
type Table struct {
	withNamespace bool
	now           time.Time
	items         []output.Item
	ttl           bool
}

// NewTable starts a Table; withNamespace adds the NAMESPACE column.
func NewTable(withNamespace bool, now time.Time) *Table {
	return &Table{withNamespace: withNamespace, now: now}
}

// Add adds a row for each of clusters.
func (t *Table) Add(clusters []v1alpha1.TenantCluster) {
	d := doc(clusters, t.withNamespace, nil, false, t.now, true) // TTL cells kept until Doc
	for i := range d.Items {
		d.Items[i].Object = nil
	}
	t.items = append(t.items, d.Items...)
	t.ttl = t.ttl || clusterttl.Any(clusters)
}

// Doc is the rows added, with a TTL column when one of the clusters has an expiry, as
// Doc gives them.
func (t *Table) Doc() output.Doc {
	d := doc(nil, t.withNamespace, nil, false, t.now, t.ttl)
	if !t.ttl {
		at := len(d.Header) // the TTL cell came right after AGE, the header's last column
		for i := range t.items {
			cells := t.items[i].Cells
			t.items[i].Cells = append(cells[:at:at], cells[at+1:]...)
		}
	}
	d.Items = t.items
	return d
}

// Package get is `butleradm provider get`: one ProviderConfig with its settings, status,
// capacity, credentials (key names only) and the clusters using it.
package get

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/internal/textwrap"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what provider get prints: the ProviderConfig (docs/output.md).
var Spec = output.Spec{Objects: true, Name: true}

// Store is what provider get reads: the provider and the clusters that use it
// (store.Reader), and its Secret's key names (never its values), worded by which store it is.
type Store interface {
	store.Reader
	store.Kinded
	SecretKeys(ctx context.Context, namespace, name string) ([]string, error)
}

var _ Store = store.Store(nil)

// Options are what provider get runs with: its flags and argument and, from Complete, its
// dependencies.
type Options struct {
	// FindOptions are the name, --team, -n and the dependencies, from Complete.
	providerutil.FindOptions[Store]
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME [--team TEAM | -n NAMESPACE]",
		Short: "Show one ProviderConfig: settings, status, capacity, credentials and users",
		Long: `Show one ProviderConfig, found in -n NAMESPACE; with --team in the team's namespace, then
in butler-system; with neither in butler-system, else wherever it is if the name is unique.

Besides its settings it shows the controller's status (ready, validated, last validation
and probe, provider version, conditions) and capacity (available IPs, estimated tenants),
the credentials Secret with its key names (never its values) checked against what the
provider needs, and the TenantClusters that use it. -o yaml and -o json print the object.`,
		Example: `  butleradm provider get harvester-prod
  butleradm provider get azure-platform-team --team platform-team -o yaml`,
	}
	o.TeamFlag(cmd)
	o.Print = f.NamedCommand(cmd, "a ProviderConfig NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, pc, err := o.Provider(ctx)
	if err != nil {
		return err
	}
	return o.Printer.Print(output.Doc{
		One:   true,
		Items: []output.Item{{Object: providerutil.WithTypeMeta(*pc)}},
		Text:  func(w io.Writer) error { return describe(ctx, w, s, pc, o.Now(), o.IO.Width()) },
	})
}

// describe is the human output: settings, then status, capacity and users.
func describe(ctx context.Context, w io.Writer, s Store, pc *v1alpha1.ProviderConfig, now time.Time, width int) error {
	d := &describer{w: w, width: width}
	d.line("Name", pc.Name)
	d.line("Namespace", pc.Namespace)
	d.line("Provider", pc.Spec.Provider)
	if pc.ScopeType() == v1alpha1.ScopePlatform {
		d.line("Scope", "platform (every team may use it)")
	} else {
		d.line("Scope", fmt.Sprintf("team (only team %s may use it)", providerutil.Teams(pc)))
	}
	d.line("Age", providerutil.Age(pc, now))
	secNS, secName := providerutil.SecretRef(pc)
	d.line("Credentials", fmt.Sprintf("Secret %s/%s %s", secNS, secName, credentialKeys(ctx, s, pc)))
	if err := d.block("Settings", section(pc)); err != nil {
		return err
	}
	network := pc.Spec.Network
	if network == nil {
		network = &v1alpha1.ProviderNetwork{}
	}
	network = network.DeepCopy()
	if network.Mode == "" {
		network.Mode = v1alpha1.NetworkModeCloud
	}
	if err := d.block("Network", network); err != nil {
		return err
	}
	if pc.Spec.Limits == nil {
		d.line("Limits", "none")
	} else if err := d.block("Limits", pc.Spec.Limits); err != nil {
		return err
	}
	if err := d.status(pc); err != nil {
		return err
	}
	clusters, err := s.ListClusters(ctx, "")
	switch {
	case apierrors.IsForbidden(err):
		d.line("Used by", "? (you may not list TenantClusters in every namespace)")
	case err != nil:
		return err
	default:
		users := providerutil.ClustersUsing(pc, clusters)
		if len(users) == 0 {
			d.line("Used by", "no TenantCluster")
		} else {
			d.line("Used by", fmt.Sprintf("%d TenantCluster(s): %s", len(users), strings.Join(users, ", ")))
		}
	}
	return nil
}

// status prints the controller's status, capacity and conditions.
func (d *describer) status(pc *v1alpha1.ProviderConfig) error {
	st := &pc.Status
	fmt.Fprintln(d.w, "Status:")
	d.indent = "  "
	d.line("Ready", providerutil.Ready(pc))
	d.line("Validated", providerutil.Validated(pc))
	d.line("Last validation", timeOf(st.LastValidationTime))
	d.line("Last probe", timeOf(st.LastProbeTime))
	d.line("Provider version", tables.Dash(st.ProviderVersion))
	d.indent = ""
	fmt.Fprintln(d.w, "Capacity:")
	d.indent = "  "
	var ips, tenants *int32
	if st.Capacity != nil {
		ips, tenants = st.Capacity.AvailableIPs, st.Capacity.EstimatedTenants
	}
	d.line("Available IPs", count(ips))
	d.line("Estimated tenants", count(tenants))
	d.indent = ""
	if len(st.Conditions) == 0 {
		d.line("Conditions", "none")
		return nil
	}
	fmt.Fprintln(d.w, "Conditions:")
	t := tables.NewTable(false, "  TYPE", "STATUS", "REASON", "MESSAGE")
	for _, c := range st.Conditions {
		t.Row("  "+c.Type, string(c.Status), tables.Dash(c.Reason), tables.Dash(c.Message))
	}
	return t.Render(d.w)
}

// credentialKeys describes the Secret's keys, checked against the provider's key sets.
func credentialKeys(ctx context.Context, s Store, pc *v1alpha1.ProviderConfig) string {
	ns, name := providerutil.SecretRef(pc)
	keys, err := s.SecretKeys(ctx, ns, name)
	switch {
	case apierrors.IsNotFound(err) && s.Kind() == store.Live:
		return "(not found: the provider cannot work)"
	case apierrors.IsNotFound(err):
		return "(not in the manifests)"
	case apierrors.IsForbidden(err):
		return "(its keys are not readable: forbidden)"
	case err != nil:
		return "(its keys are not readable)"
	}
	desc := "(keys: " + strings.Join(keys, ", ") + ")"
	if len(keys) == 0 {
		desc = "(no keys)"
	}
	if policy.RequiredCredentialKeys(pc.Spec.Provider) != nil {
		if err := policy.ValidateCredentials(pc.Spec.Provider, keys); err != nil {
			desc += ": " + err.Error()
		}
	}
	return desc
}

// section is the settings of the provider chosen, nil when missing.
func section(pc *v1alpha1.ProviderConfig) any {
	s := &pc.Spec
	switch s.Provider {
	case v1alpha1.ProviderHarvester:
		return s.Harvester
	case v1alpha1.ProviderNutanix:
		return s.Nutanix
	case v1alpha1.ProviderProxmox:
		return s.Proxmox
	case v1alpha1.ProviderAzure:
		return s.Azure
	case v1alpha1.ProviderAWS:
		return s.AWS
	case v1alpha1.ProviderGCP:
		return s.GCP
	}
	return nil
}

type describer struct {
	w      io.Writer
	indent string
	// width is the terminal's: a long value wraps under its column (0: one line).
	width int
}

func (d *describer) line(label, value string) {
	head := fmt.Sprintf("%s%-*s ", d.indent, 20-len(d.indent), label+":")
	fmt.Fprintln(d.w, textwrap.Indent(inert.Text(value), head, strings.Repeat(" ", len(head)), d.width))
}

// block prints v as YAML under label, indented.
func (d *describer) block(label string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	text := strings.TrimRight(string(b), "\n")
	if text == "null" || text == "{}" || text == "" {
		d.line(label, "none")
		return nil
	}
	fmt.Fprintf(d.w, "%s%s:\n", d.indent, label)
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(d.w, "%s  %s\n", d.indent, l)
	}
	return nil
}

func timeOf(t *metav1.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

func count(v *int32) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(int(*v))
}

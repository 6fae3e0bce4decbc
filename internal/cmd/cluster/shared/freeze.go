// Package shared is the command logic several cluster commands share, as gh keeps it
// beside the commands of one noun: freezing and thawing a control plane, the WRITES
// column of the tables, the question of --environment, and waiting for a cluster.
package shared

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Change is what `butleradm cluster freeze` or `thaw` asks for.
type Change struct {
	// Verb is the command, for messages: "freeze" or "thaw".
	Verb string
	// Done is what a change reports: "frozen" or "thawed".
	Done        string
	Cluster     string
	Team        string
	Permissions stewardv1alpha1.Permissions
	// Print is the command's -o, validated before Apply.
	Print *output.Flags
	// DryRun is --dry-run: the store writes nothing, the report says so.
	DryRun cmdutil.DryRun
}

// Spec is what freeze and thaw print: their Result (a computed view, it has no
// apiVersion or kind) and -o name (docs/output.md).
var Spec = output.Spec{Name: true}

// Result is what a change did, as -o json and yaml print it.
type Result struct {
	Cluster          string           `json:"cluster"`
	Namespace        string           `json:"namespace"`
	Team             string           `json:"team"`
	ControlPlane     controlplane.Ref `json:"controlPlane"`
	WritePermissions WritePermissions `json:"writePermissions"`
	Mode             string           `json:"mode"`
	// Status is the control plane's status as the write left it; Steward changes it to
	// WriteLimited (or back) when it applies the change.
	Status string `json:"status"`
	// Changed is false when the control plane already was in the wanted state.
	Changed bool `json:"changed"`
}

// WritePermissions are spec.writePermissions with every field written out.
type WritePermissions struct {
	BlockCreation bool `json:"blockCreation"`
	BlockUpdate   bool `json:"blockUpdate"`
	BlockDeletion bool `json:"blockDeletion"`
}

// FreezeStore is what Apply reads and writes: the team, who asks and the cluster
// (store.Reader), and its control plane's write permissions.
type FreezeStore interface {
	store.Reader
	store.ControlPlanes
}

// ChangeOptions are what freeze and thaw act on, embedded in their Options: the cluster
// and its team, with the command's dependencies.
type ChangeOptions[S FreezeStore] struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	ClusterOptions[S]
}

// ValidateShared: a missing --team is the store's to word (lookup.Team), as before the team
// is read; -o is factory.Run's.
func (o *ChangeOptions[S]) ValidateShared() error { return nil }

// Apply opens the store and makes the change ch (its Verb, Done and Permissions) to the
// cluster named, printing by the command's -o.
func (o *ChangeOptions[S]) Apply(ctx context.Context, ch Change) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	ch.Cluster, ch.Team, ch.Print, ch.DryRun = o.Name, o.Team, o.Print, o.DryRun
	return Apply(ctx, s, o.IO, ch)
}

// Apply makes the write permissions of a cluster's control plane ch.Permissions and
// reports it. The cluster is the one named in the team's namespace; only team admins of
// that team (the team role of docs/rules.md §3.1 being admin) and platform admins may change
// it, checked before anything is read of the control plane. Live the server's RBAC on
// tenantcontrolplanes has the last word (exit 4 with its message). Nothing is written
// when the control plane is already in the wanted state.
func Apply(ctx context.Context, s FreezeStore, ios *iostreams.IOStreams, ch Change) error {
	team, err := lookup.Team(ctx, s, ch.Team)
	if err != nil {
		return err
	}
	ns := team.TeamNamespace()
	c, err := s.GetCluster(ctx, ns, ch.Cluster)
	if apierrors.IsNotFound(err) {
		return cmdutil.NotFoundError("tenant cluster %q not found in namespace %q", ch.Cluster, ns)
	}
	if err != nil {
		return err
	}
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	if err := Authorize(team, actor, ch.Verb, c.Name); err != nil {
		return err
	}
	tcp, err := controlplane.Get(ctx, s, c)
	if err != nil {
		return err
	}
	ref, _ := controlplane.RefOf(c)
	res := store.Result{}
	changed := tcp.Spec.WritePermissions != ch.Permissions
	if changed {
		if tcp, res, err = s.SetWritePermissions(ctx, ref.Namespace, ref.Name, ch.Permissions); err != nil {
			return err
		}
	}
	p := tcp.Spec.WritePermissions
	r := Result{
		Cluster:          c.Name,
		Namespace:        c.Namespace,
		Team:             team.Name,
		ControlPlane:     ref,
		WritePermissions: WritePermissions{BlockCreation: p.BlockCreate, BlockUpdate: p.BlockUpdate, BlockDeletion: p.BlockDelete},
		Mode:             controlplane.Mode(p),
		Status:           controlplane.Status(tcp),
		Changed:          changed,
	}
	return report(ios, ch, r, res)
}

// Authorize refuses (exit 4) anyone who is neither a team admin of team (the team role,
// docs/rules.md §3.1: users[] and groups[] entries, groups normalised) nor a platform admin.
// An environment's admin grant does not count: write permissions apply to the whole
// control plane, whatever the environment.
func Authorize(team *v1alpha1.Team, actor lookup.Actor, verb, cluster string) error {
	role := policy.TeamRole(team, actor.Identity, actor.PlatformAdmin)
	if role.Role == policy.RoleAdmin {
		return nil
	}
	has := role.Role.String()
	if role.Role == policy.RoleNone {
		has = "none, not a member"
	}
	return cmdutil.DeniedError(fmt.Errorf("user %q may not %s tenant cluster %q: only team admins of %q and platform admins may (team role: %s)",
		actor.Identity.Username, verb, cluster, team.Name, has))
}

func report(ios *iostreams.IOStreams, ch Change, r Result, res store.Result) error {
	name := "tenantcluster.butler.butlerlabs.dev/" + r.Cluster
	p := ch.Print.Printer(ios)
	p.Suffix = ch.DryRun.Suffix()
	return p.Print(output.Doc{
		One:   true,
		Items: []output.Item{{View: r, Name: name}},
		Text:  func(w io.Writer) error { return text(w, p, name, ch, r, res) },
	})
}

// text is the human report: what happened, then what the control plane blocks.
func text(w io.Writer, p *output.Printer, name string, ch Change, r Result, res store.Result) error {
	thaw := r.Mode == controlplane.None
	switch {
	case thaw && !r.Changed:
		fmt.Fprintf(w, "%s unchanged: not frozen\n", name)
	case thaw:
		fmt.Fprintln(w, p.DoneLine(name+" "+ch.Done, res.Location))
	case !r.Changed:
		fmt.Fprintf(w, "%s unchanged: already %s\n", name, r.Mode)
	default:
		fmt.Fprintln(w, p.DoneLine(name+" "+ch.Done+": "+r.Mode, res.Location))
	}
	perms := stewardv1alpha1.Permissions{BlockCreate: r.WritePermissions.BlockCreation, BlockUpdate: r.WritePermissions.BlockUpdate, BlockDelete: r.WritePermissions.BlockDeletion}
	line := fmt.Sprintf("tenantcontrolplane %s blocks %s", r.ControlPlane, controlplane.Blocked(perms))
	if r.Status != "" {
		line += "; status " + r.Status
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// WriteStates is controlplane.States for a table: its error is a warning on errOut, the
// listing itself never fails for it.
func WriteStates(ctx context.Context, errOut io.Writer, s store.ControlPlanes, clusters []v1alpha1.TenantCluster) map[string]string {
	states, err := controlplane.States(ctx, s, clusters)
	if err != nil {
		fmt.Fprintf(errOut, "Warning: cannot read the write state of every control plane (WRITES shows %s): %v\n", controlplane.Unknown, err)
	}
	return states
}

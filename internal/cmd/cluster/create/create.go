// Package create is `butlerctl cluster create`: render a TenantCluster with its defaults
// resolved, run the server's admission rules on it, then print, write or send it.
package create

import (
	"context"
	"fmt"
	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what cluster create prints: the objects it renders or creates (the TenantCluster,
// then its TenantAddons); an explanation or a refusal, which have no object, print their
// view (Explanation, clusterview.Violation) instead.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of cluster create.
type Options struct {
	Name        string
	Team        string
	Environment string
	Provider    string
	Workers     int32
	CPU         int32
	Memory      string
	Disk        string
	Version     string
	Addons      []string
	Write       bool
	Explain     bool
	// DryRun is "none" (create), "client" (print the rendering, send nothing) or
	// "server" (send with server-side dry run, print the server's answer).
	DryRun  string
	Wait    bool
	Timeout time.Duration
	Print   *output.Flags

	explicit policy.Explicit
	cmdLine  string // as typed, for the hint after a refusal
	extras   []addon
	options  map[string]*string // option type -> --image, --network, ... (options.go)
}

type addon struct{ name, version string }

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME --team TEAM [--environment ENV]",
		Short: "Create a tenant cluster, with defaults resolved and every quota checked first",
		Long: `Render a TenantCluster with the team's and environment's defaults resolved, check it
against every admission rule the server applies, then print it (--dry-run, and always on
manifests), write it into the manifests (--write), or create it. A refusal prints the
server's own message and exits 4; --explain shows every value's source and every check.`,
		Example: `  butlerctl cluster create web --team payments --environment prod --manifests examples/payments --as bob@example.com
  butlerctl cluster create web --team payments --environment dev --explain
  butlerctl cluster create web --team payments --environment dev --workers 3 --memory 8Gi -o json
  butlerctl cluster create web --team payments --environment prod --dry-run=server -o yaml
  butlerctl cluster create web --team payments --environment prod --wait --timeout 20m`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			o.cmdLine = commandLine(cmd, args)
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			if err := o.complete(cmd); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	cmdutil.Details(cmd, `The checks: environment, per-member, provider and team quotas, team restrictions, and
the ClusterCreationPolicies (docs/rules.md). On a terminal a refusal adds, below the
server's message, the figures and the next step (help environment: BUTLER_HINTS).

Live, the cluster is created once the checks pass. --dry-run (or --dry-run=client) prints
it and sends nothing; --dry-run=server sends it with the server's dry run, so RBAC,
admission webhooks and the schema have their say too, and prints the object as the server
returned it: nothing is stored. --wait waits until the cluster's phase is Ready, showing
progress on stderr, for at most --timeout (15m); a timeout or a Failed phase is exit 1, and
the cluster stays.`)
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	fl.StringVar(&o.Team, "team", "", "Team that owns the cluster (required)")
	fl.StringVar(&o.Environment, "environment", "", "Environment of the team to create the cluster in")
	fl.StringVar(&o.Provider, "provider", "", "ProviderConfig name (default: the team's, or the only visible one)")
	fl.Int32Var(&o.Workers, "workers", 0, "Worker nodes")
	fl.Int32Var(&o.CPU, "cpu", 0, "CPU cores per worker")
	fl.StringVar(&o.Memory, "memory", "", "Memory per worker, a quantity such as 16Gi")
	fl.StringVar(&o.Disk, "disk", "", "Disk per worker, a quantity such as 100Gi")
	fl.StringVar(&o.Version, "kubernetes-version", "", "Kubernetes version, vX.Y.Z")
	fl.StringArrayVar(&o.Addons, "addon", nil, "Extra addon as NAME@VERSION (repeatable)")
	addOptionFlags(fl, o)
	fl.BoolVar(&o.Write, "write", false, "With --manifests: add the cluster to the manifests")
	fl.BoolVar(&o.Explain, "explain", false, "Explain each value's source and each quota before and after")
	fl.StringVar(&o.DryRun, "dry-run", "none", `"client": print the cluster, send nothing; "server": send it with server-side dry run and print the server's answer`)
	fl.Lookup("dry-run").NoOptDefVal = "client"
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]cobra.Completion{"none", "client", "server"}, cobra.ShellCompDirectiveNoFileComp))
	fl.BoolVar(&o.Wait, "wait", false, "Live: wait until the cluster's phase is Ready")
	fl.DurationVar(&o.Timeout, "timeout", clusterwatch.DefaultTimeout, "With --wait: how long to wait for Ready")
	return cmd
}

// complete turns flags into typed values; bad values are usage errors (exit 2).
func (o *Options) complete(cmd *cobra.Command) error {
	if errs := validation.IsDNS1123Label(o.Name); len(errs) > 0 {
		return cmdutil.UsageError("invalid cluster name %q: %s", o.Name, strings.Join(errs, "; "))
	}
	if o.Team == "" {
		return cmdutil.UsageError("--team is required")
	}
	if cmdutil.IsSet(cmd.Flags(), "workers") {
		if o.Workers < 1 {
			return cmdutil.UsageError("--workers must be at least 1, got %d", o.Workers)
		}
		o.explicit.WorkerCount = &o.Workers
	}
	if cmdutil.IsSet(cmd.Flags(), "cpu") {
		if o.CPU < 1 {
			return cmdutil.UsageError("--cpu must be at least 1, got %d", o.CPU)
		}
		o.explicit.WorkerCPU = &o.CPU
	}
	for _, q := range []struct {
		flag, value string
		dst         **resource.Quantity
	}{{"memory", o.Memory, &o.explicit.WorkerMemory}, {"disk", o.Disk, &o.explicit.WorkerDisk}} {
		if q.value == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil || v.Sign() <= 0 {
			return cmdutil.UsageError("--%s: %q is not a positive quantity such as 16Gi", q.flag, q.value)
		}
		*q.dst = &v
	}
	if o.Version != "" {
		v, err := policy.NormalizeVersion(o.Version)
		if err != nil {
			return cmdutil.UsageError("--kubernetes-version: %v", err)
		}
		o.explicit.KubernetesVersion = v
	}
	switch o.DryRun {
	case "none", "client", "server":
	default:
		return cmdutil.UsageError("--dry-run: %q is not one of none, client, server", o.DryRun)
	}
	if cmd.Flags().Changed("timeout") && !o.Wait {
		return cmdutil.UsageError("--timeout goes with --wait")
	}
	if o.Wait && o.Timeout <= 0 {
		return cmdutil.UsageError("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Wait && o.DryRun != "none" {
		return cmdutil.UsageError("--wait waits for a created cluster: it does not go with --dry-run")
	}
	if o.Wait && (o.Explain || o.Write) {
		return cmdutil.UsageError("--wait waits for a created cluster: it does not go with --explain or --write")
	}
	for _, a := range o.Addons {
		name, version, ok := strings.Cut(a, "@")
		if !ok || name == "" || version == "" {
			return cmdutil.UsageError("--addon %q: want NAME@VERSION, for example cert-manager@v1.16.0", a)
		}
		o.extras = append(o.extras, addon{name, version})
	}
	return nil
}

// plan is everything the command worked out before acting.
type plan struct {
	cluster  *v1alpha1.TenantCluster
	addons   []v1alpha1.TenantAddon
	defaults policy.Defaults
	decision policy.Decision
	role     policy.RoleResult
	actor    lookup.Actor
	options  []ExplainedOption
	team     *v1alpha1.Team
	siblings []v1alpha1.TenantCluster // the team's clusters before this one
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	if err := o.checkMode(f); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	team, siblings, err := lookup.TeamClusters(ctx, s, o.Team)
	if err != nil {
		return err
	}
	if err := shared.CheckEnvironment(team, o.Environment); err != nil {
		return err
	}
	p, err := newPlan(ctx, f, s, team, siblings, o)
	if err != nil {
		return err
	}
	actor := p.actor

	// Role first: without operator rights the server would refuse before any quota.
	if !p.role.Role.CanOperate() {
		return o.hinted(f, cmdutil.DeniedError(fmt.Errorf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
			actor.Identity.Username, where(team.Name, o.Environment), p.role.Role, p.role.Reason)), roleHint(team.Name, o.Environment))
	}
	if o.Explain {
		if err := explain(f, p, o); err != nil {
			return err
		}
	}
	if !p.decision.Allowed() {
		return deny(f, p, o)
	}
	// After admission, as on the server (admission runs before storage): a name that
	// exists is the server's AlreadyExists (exit 1, as kubectl create), with or without
	// --write, never a rendering that looks fine.
	if exists(siblings, o.Name) {
		return apierrors.NewAlreadyExists(v1alpha1.Resource("tenantclusters"), o.Name)
	}
	if o.Explain && !o.Write {
		return nil
	}
	if o.Write {
		res, err := s.CreateCluster(ctx, p.cluster, p.addons)
		if err != nil {
			return err
		}
		if o.Explain && o.Print.Structured() {
			return nil // the explanation was the one document on stdout
		}
		return o.Print.Printer(f.IOStreams).Print(planDoc(p, "created", res.Location))
	}
	if !f.Offline() && o.DryRun == "server" {
		return serverDryRun(ctx, f, s, p, o)
	}
	if !f.Offline() && o.DryRun == "none" {
		return createLive(ctx, f, s, p, o)
	}
	return o.Print.Printer(f.IOStreams).Print(planDoc(p, "", ""))
}

// newPlan renders the cluster with its defaults and runs the admission rules on it.
func newPlan(ctx context.Context, f *factory.Factory, s store.Store, team *v1alpha1.Team, siblings []v1alpha1.TenantCluster, o *Options) (*plan, error) {
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return nil, err
	}
	p := &plan{actor: actor, team: team, siblings: siblings}
	p.role = policy.EnvironmentRole(team, o.Environment, actor.Identity, actor.PlatformAdmin)
	p.defaults, err = policy.ResolveDefaults(team, o.Environment, o.explicit)
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	if p.defaults.KubernetesVersion == "" {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, policy.ErrNoKubernetesVersion)
	}
	ref, pc, err := lookup.Provider(ctx, s, team, o.Provider)
	if err != nil {
		return nil, err
	}
	p.cluster = render(team, o, p.defaults, ref, actor.Identity)
	policies, options, err := applyOptions(ctx, f, s, p.cluster, pc, o)
	if err != nil {
		return nil, err
	}
	p.options = options
	p.addons = tenantAddons(p.cluster, o.extras)
	addonNames := append([]string{}, p.defaults.Addons...)
	for _, a := range o.extras {
		addonNames = append(addonNames, a.name)
	}
	p.decision = policy.AdmitCluster(policy.ClusterRequest{
		Operation:      policy.Create,
		Cluster:        p.cluster,
		Team:           team,
		Siblings:       siblings,
		ProviderConfig: pc,
		Username:       actor.Identity.Username,
		Addons:         addonNames,
		Policies:       policies,
	})
	return p, nil
}

// render builds the TenantCluster as the server should receive it.
func render(team *v1alpha1.Team, o *Options, d policy.Defaults, ref *v1alpha1.ProviderReference, id policy.Identity) *v1alpha1.TenantCluster {
	labels := map[string]string{v1alpha1.LabelTeam: team.Name}
	if o.Environment != "" {
		labels[v1alpha1.LabelEnvironment] = o.Environment
	}
	c := &v1alpha1.TenantCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantCluster},
		ObjectMeta: metav1.ObjectMeta{
			Name:        o.Name,
			Namespace:   team.TeamNamespace(),
			Labels:      labels,
			Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: policy.NormalizeEmail(id.Username)},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: d.KubernetesVersion,
			TeamRef:           &v1alpha1.LocalObjectReference{Name: team.Name},
			ProviderConfigRef: ref,
			Workers: v1alpha1.WorkersSpec{
				Replicas: d.WorkerCount,
				MachineTemplate: v1alpha1.MachineTemplate{
					CPU:      d.WorkerCPU,
					Memory:   d.WorkerMemory,
					DiskSize: d.WorkerDisk,
				},
			},
		},
	}
	return c
}

// Package policyutil holds what butleradm policy create and update share: the scope and
// option flags turned into a ClusterCreationPolicy's fields, and -f FILE read bounded.
package policyutil

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Scopes are the values of --scope, in the CRD's order.
var Scopes = []string{"platformWide", "team", "teamAndEnvironment"}

// Scope is the scope --scope, --team and --environment describe. The server's CEL rule and
// its admission judge the rest (a missing team, a missing environment), with its messages.
func Scope(scope, team, env string) (v1alpha1.PolicyScope, error) {
	var s v1alpha1.PolicyScope
	switch scope {
	case "platformWide":
		s.PlatformWide = &v1alpha1.PlatformWideScope{}
	case "team":
		s.Team = &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: team}}
	case "teamAndEnvironment":
		s.TeamAndEnvironment = &v1alpha1.TeamAndEnvironmentScope{
			TeamRef: v1alpha1.LocalObjectReference{Name: team}, EnvironmentName: env}
	default:
		return s, cmdutil.UsageError("--scope must be platformWide, team or teamAndEnvironment, got %q", scope)
	}
	return s, nil
}

// Option parses one --option OPTION=MODE[:V1,V2...]; for mode default the value after the
// colon is the default.
func Option(r string) (string, v1alpha1.OptionRule, error) {
	key, rest, ok := strings.Cut(r, "=")
	if !ok || key == "" {
		return "", v1alpha1.OptionRule{}, cmdutil.UsageError("--option %q: want OPTION=MODE[:V1,V2...]", r)
	}
	mode, values, _ := strings.Cut(rest, ":")
	rule := v1alpha1.OptionRule{Mode: mode}
	if values != "" {
		rule.Values = strings.Split(values, ",")
	}
	if mode == v1alpha1.ModeDefault {
		rule.Default, rule.Values = values, nil
	}
	return key, rule, nil
}

// SetOptions applies --option flags to p's options, each replacing the rule of its key.
func SetOptions(p *v1alpha1.ClusterCreationPolicy, flags []string) error {
	for _, r := range flags {
		key, rule, err := Option(r)
		if err != nil {
			return err
		}
		if p.Spec.Options == nil {
			p.Spec.Options = map[string]v1alpha1.OptionRule{}
		}
		p.Spec.Options[key] = rule
	}
	return nil
}

// Providers are the --provider-type values as the spec's type.
func Providers(flags []string) []v1alpha1.PolicyProviderType {
	var out []v1alpha1.PolicyProviderType
	for _, pt := range flags {
		out = append(out, v1alpha1.PolicyProviderType(pt))
	}
	return out
}

// FromFile reads the ClusterCreationPolicy of -f FILE (bounded like a manifest file), or of
// stdin for -f -, as kubectl reads it; name, when given, must be the file's. Bad input is a
// usage error (exit 2) naming the file.
func FromFile(path, name string, stdin io.Reader) (*v1alpha1.ClusterCreationPolicy, error) {
	var data []byte
	var err error
	if path == "-" {
		path = "standard input"
		if data, err = fileio.ReadAll(stdin, manifest.DefaultMaxFileBytes); err != nil {
			return nil, cmdutil.UsageError("reading %s: %v", path, err)
		}
	} else if data, err = fileio.ReadFile(path, manifest.DefaultMaxFileBytes); err != nil {
		return nil, cmdutil.UsageError("%v", err)
	}
	objs, err := manifest.Decode(path, data)
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	for _, obj := range objs {
		if p, ok := obj.Obj.(*v1alpha1.ClusterCreationPolicy); ok {
			if name != "" && p.Name != name {
				return nil, cmdutil.UsageError("NAME %q differs from the file's %q", name, p.Name)
			}
			return p, nil
		}
	}
	return nil, cmdutil.UsageError("no ClusterCreationPolicy in %s", path)
}

// Store is what the policy commands' shared checks read: the policies, the teams and who
// asks (store.Reader), and which store it is (on manifests Authorize applies who may
// write a policy; live, the server's RBAC decides).
type Store interface {
	store.Reader
	store.Kinded
}

var _ Store = store.Store(nil)

// Admit judges p as the server's ClusterCreationPolicy webhook does, as a create or as an
// update (the stored policy of p's name is not a conflict of its own), and refuses it with
// the server's messages (exit 4) before anything is sent.
func Admit(ctx context.Context, s store.Reader, op policy.Operation, p *v1alpha1.ClusterCreationPolicy) error {
	others, err := s.ListClusterCreationPolicies(ctx)
	if err != nil {
		return err
	}
	d := policy.AdmitPolicy(policy.PolicyRequest{Operation: op, Policy: p, Others: others, Team: func(name string) *v1alpha1.Team {
		t, err := s.GetTeam(ctx, name)
		if err != nil {
			return nil
		}
		return t
	}})
	if !d.Allowed() {
		return cmdutil.DeniedError(d.Err())
	}
	return nil
}

// Authorize refuses a non platform admin offline, as the server does (live it decides).
func Authorize(ctx context.Context, s Store, verb, name string) error {
	actor, judge, err := lookup.OfflineActor(ctx, s)
	if err != nil || !judge || actor.PlatformAdmin {
		return err
	}
	return cmdutil.DeniedError(fmt.Errorf("user %q may not %s ClusterCreationPolicy %q: ClusterCreationPolicies are managed by platform admins",
		actor.Identity.Username, verb, name))
}

// Cells are a policy's row in butleradm policy list and get.
func Cells(p *v1alpha1.ClusterCreationPolicy) []string {
	team, env := p.Spec.Scope.Target()
	var providers, options []string
	for _, pt := range p.Spec.TargetProviders {
		providers = append(providers, string(pt))
	}
	for _, opt := range v1alpha1.OptionTypes {
		if r, ok := p.Spec.Options[opt]; ok {
			options = append(options, opt+"="+r.Mode)
		}
	}
	return []string{p.Name, p.Spec.Scope.Tier().String(), dash(team), dash(env),
		dash(strings.Join(providers, ",")), dash(strings.Join(options, ","))}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

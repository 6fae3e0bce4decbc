// Package completion is the shell completion of both binaries: cobra's `completion
// bash|zsh|fish|powershell` command, and dynamic completion of team, environment, cluster
// and provider names and of flag values (output formats, roles, provider types, scopes,
// network modes).
//
// Names are read through the same store as the commands: the manifests given with
// --manifests on the command line being completed (or BUTLER_MANIFESTS, or the config
// file), else the cluster of the kubeconfig. A completion never waits more than Timeout
// and never prints an error: an unreachable cluster, a missing kubeconfig or a broken
// manifest simply completes nothing, and file names are never offered instead.
//
// Register attaches the completions to a built command tree by command path and flag
// name, so the commands themselves need nothing; a command or flag that already has a
// completion function keeps it.
package completion

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Timeout bounds each dynamic completion, store loading and requests included.
var Timeout = 2 * time.Second

// NoFile is the directive of every dynamic completion: names only, never file names.
const NoFile = cobra.ShellCompDirectiveNoFileComp

// completer reads names through the factory's store.
type completer struct {
	f *factory.Factory
}

// Register makes sure root has cobra's default `completion` command (documented, so the
// generated reference and man pages include it) and attaches the dynamic completions to
// every command and flag of the tree. Call it once the tree is complete.
func Register(root *cobra.Command, f *factory.Factory) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Long += completionLong
			for _, sh := range c.Commands() {
				// cobra's scripts go to the writer the root had when the command was made;
				// write them to the command's output as every other command does.
				sh.RunE = script(sh.Name())
			}
		}
	}
	c := &completer{f: f}
	walk(root, func(cmd *cobra.Command) {
		path := relPath(root, cmd)
		if strings.HasPrefix(path, "completion") || strings.HasPrefix(path, "help") {
			return
		}
		if cmd.ValidArgsFunction == nil && len(cmd.ValidArgs) == 0 && cmd.Runnable() {
			if fn := c.argsFunc(path); fn != nil {
				cmd.ValidArgsFunction = fn
			} else if !takesFiles(cmd) {
				cmd.ValidArgsFunction = cobra.NoFileCompletions
			}
		}
		for _, fs := range []*pflag.FlagSet{cmd.LocalNonPersistentFlags(), cmd.PersistentFlags()} {
			fs.VisitAll(func(fl *pflag.Flag) {
				if fn := c.flagFunc(path, fl); fn != nil {
					// An error means the flag already has a completion: keep it.
					_ = cmd.RegisterFlagCompletionFunc(fl.Name, fn)
				}
			})
		}
	})
}

const completionLong = `
Beyond command and flag names, completion knows team, environment, cluster and provider
names, team members and groups, addons (installed, or allowed for the team), output formats, roles (after the colon of --access-user and --access-group), provider
types, scopes and network modes. Names are read from the manifests given with --manifests on
the line being completed (or BUTLER_MANIFESTS, or the config file), else from the cluster of
your kubeconfig. Each completion waits at most 2 seconds and stays silent when the cluster
cannot be reached.

Pre-generated scripts for every shell are in the completions/ folder of the source and of
the release archives.
`

// script writes the completion script of a shell to the command's output.
func script(shell string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		desc := true
		if nd, err := cmd.Flags().GetBool("no-descriptions"); err == nil && nd {
			desc = false
		}
		w, root := cmd.OutOrStdout(), cmd.Root()
		switch shell {
		case "bash":
			return root.GenBashCompletionV2(w, desc)
		case "zsh":
			if desc {
				return root.GenZshCompletion(w)
			}
			return root.GenZshCompletionNoDesc(w)
		case "fish":
			return root.GenFishCompletion(w, desc)
		case "powershell":
			if desc {
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return root.GenPowerShellCompletion(w)
		}
		return fmt.Errorf("no completion for shell %q", shell)
	}
}

func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		walk(c, fn)
	}
}

// relPath is the command's path below the root: "cluster get".
func relPath(root, cmd *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.CommandPath()), " ")
}

// takesFiles reports whether the command's arguments are files, by its usage line.
func takesFiles(cmd *cobra.Command) bool {
	u := strings.ToUpper(cmd.Use)
	return strings.Contains(u, "FILE") || strings.Contains(u, "PATH")
}

// argNames says what a command's positional arguments are, by command path in either
// binary: the name of one team, environment, cluster or provider, or cluster names (any
// number). A test checks that every path is a command of butlerctl or butleradm.
var argNames = map[string]string{
	"team get": "team", "team access": "team", "team set-limits": "team", "team delete": "team", "context use": "team",
	"team member add": "new member", "team member remove": "member", "team member set-role": "member",
	"team group add": "new group", "team group remove": "group", "team group set-role": "group",
	"env get": "environment", "env update": "environment", "env delete": "environment",
	"env migrate": "clusters",
	"cluster get": "cluster", "cluster delete": "cluster", "cluster scale": "cluster",
	"cluster kubeconfig": "cluster", "addon list": "cluster", "addon install": "addon install", "addon uninstall": "addon", "cluster freeze": "cluster", "cluster thaw": "cluster",
	"provider get": "provider", "provider delete": "provider", "provider rotate-credentials": "provider",
}

// argsFunc is the completion of a command's positional arguments, by command path.
func (c *completer) argsFunc(path string) cobra.CompletionFunc {
	switch argNames[path] {
	case "team":
		return first(c.teams)
	case "environment":
		return first(c.environments)
	case "cluster":
		return first(c.clusters)
	case "clusters":
		return c.clusters
	case "provider":
		return first(c.providers)
	case "addon", "addon install":
		return c.addonArgs
	case "member", "new member", "group", "new group":
		kind := argNames[path]
		return c.memberArgs(strings.HasSuffix(kind, "group"), !strings.HasPrefix(kind, "new "))
	}
	return nil
}

// fileFlags keep the shell's file completion.
var fileFlags = map[string][]string{
	"kubeconfig": nil,
	"manifests":  {"yaml", "yml"},
	"config":     {"yaml", "yml"},
	"filename":   {"yaml", "yml", "json"},
	"file":       {"yaml", "yml", "json"},
}

// flagFunc is the completion of a flag's value, by flag name (and command path where the
// same name means different things).
func (c *completer) flagFunc(path string, fl *pflag.Flag) cobra.CompletionFunc {
	if fl.Value.Type() == "bool" {
		return nil
	}
	if exts, ok := fileFlags[fl.Name]; ok {
		if exts == nil {
			return nil
		}
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return exts, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	if strings.HasSuffix(fl.Name, "-dir") {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	}
	if strings.HasSuffix(fl.Name, "file") || fl.Shorthand == "f" {
		return nil
	}
	switch fl.Name {
	case "output":
		return fixed(outputFormats())
	case "team":
		return c.teams
	case "environment":
		return c.environments
	case "provider":
		if strings.HasPrefix(path, "provider") {
			return fixed(providerTypes)
		}
		return c.providers
	case "scope":
		return fixed(scopes)
	case "network-mode":
		return fixed(networkModes)
	case "lb-allocation":
		return fixed(lbAllocations)
	case "access-user":
		return c.accessUser
	case "access-group":
		return c.accessGroup
	case "cluster-default":
		return fixedNoSpace(clusterDefaultKeys)
	case "as":
		return c.users
	case "namespace":
		return c.namespaces
	case "context":
		return c.contexts
	}
	// Any other value (a quantity, a count, a selector) is typed, not a file.
	return cobra.NoFileCompletions
}

// first completes only the first positional argument.
func first(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, NoFile
		}
		return fn(cmd, args, toComplete)
	}
}

// ---------------------------------------------------------------------------------------
// Fixed values.
// ---------------------------------------------------------------------------------------

func outputFormats() []cobra.Completion {
	desc := map[string]string{
		"table": "columns for people (default)",
		"wide":  "the table with more columns",
		"json":  "JSON, for scripts",
		"yaml":  "YAML",
		"name":  "names only, one a line",
	}
	out := make([]cobra.Completion, 0, len(factory.OutputFormats))
	for _, o := range factory.OutputFormats {
		out = append(out, cobra.CompletionWithDesc(o, desc[o]))
	}
	return out
}

var roles = []cobra.Completion{
	cobra.CompletionWithDesc(string(v1alpha1.RoleAdmin), "manage the team's members, environments and clusters"),
	cobra.CompletionWithDesc(string(v1alpha1.RoleOperator), "create, scale and delete clusters"),
	cobra.CompletionWithDesc(string(v1alpha1.RoleViewer), "read only"),
}

var providerTypes = []cobra.Completion{
	v1alpha1.ProviderHarvester, v1alpha1.ProviderNutanix, v1alpha1.ProviderProxmox,
	v1alpha1.ProviderAzure, v1alpha1.ProviderAWS, v1alpha1.ProviderGCP,
}

var scopes = []cobra.Completion{
	cobra.CompletionWithDesc(v1alpha1.ScopePlatform, "every team may use it"),
	cobra.CompletionWithDesc(v1alpha1.ScopeTeam, "only the team given with --team"),
}

var networkModes = []cobra.Completion{
	cobra.CompletionWithDesc(v1alpha1.NetworkModeIPAM, "addresses from Butler's IP pools (--pool)"),
	cobra.CompletionWithDesc(v1alpha1.NetworkModeCloud, "addresses from the cloud provider"),
}

var lbAllocations = []cobra.Completion{
	cobra.CompletionWithDesc("static", "a fixed pool per tenant"),
	cobra.CompletionWithDesc("elastic", "a pool that grows as needed"),
}

var clusterDefaultKeys = []cobra.Completion{
	"kubernetesVersion=", "workerCount=", "workerCPU=", "workerMemoryGi=", "workerDiskGi=", "defaultAddons=",
}

func fixed(values []cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return filter(values, toComplete), NoFile
	}
}

func fixedNoSpace(values []cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return filter(values, toComplete), NoFile | cobra.ShellCompDirectiveNoSpace
	}
}

// filter keeps the completions whose value starts with prefix.
func filter(values []cobra.Completion, prefix string) []cobra.Completion {
	out := make([]cobra.Completion, 0, len(values))
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(name, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// ---------------------------------------------------------------------------------------
// Names from the store.
// ---------------------------------------------------------------------------------------

// withStore runs fn on the store of the command line being completed, within Timeout;
// any error, and a timeout, complete nothing.
func (c *completer) withStore(cmd *cobra.Command, fn func(ctx context.Context, s store.Store) []cobra.Completion) []cobra.Completion {
	// Completion skips the command's PersistentPreRunE: fill unset flags from BUTLER_*
	// and the config file here, as a run would.
	_ = cmdutil.ApplyConfig(cmd, c.f.Options.Config)
	for _, m := range c.f.Options.Manifests {
		if m == "-" { // stdin is the shell's: never read it
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	done := make(chan []cobra.Completion, 1)
	go func() {
		defer func() {
			if recover() != nil {
				done <- nil
			}
		}()
		s, err := c.f.Store(ctx)
		if err != nil {
			done <- nil
			return
		}
		done <- fn(ctx, s)
	}()
	// A store that ignores the context (a kubeconfig exec plugin) is abandoned: the
	// completion process ends right after.
	select {
	case out := <-done:
		return out
	case <-ctx.Done():
		return nil
	}
}

// flag is the value of a flag of the command line being completed.
func flag(cmd *cobra.Command, name string) string {
	if fl := cmd.Flags().Lookup(name); fl != nil {
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			if v := sv.GetSlice(); len(v) > 0 {
				return v[len(v)-1]
			}
			return ""
		}
		return fl.Value.String()
	}
	return ""
}

// names sorts, de-duplicates, drops the values in skip and keeps those starting with
// toComplete.
func names(values []cobra.Completion, toComplete string, skip []string) []cobra.Completion {
	seen := map[string]bool{}
	for _, s := range skip {
		seen[s] = true
	}
	out := make([]cobra.Completion, 0, len(values))
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if seen[name] || !strings.HasPrefix(name, toComplete) {
			continue
		}
		seen[name] = true
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// describe joins the non-empty parts of a description.
func describe(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	d := strings.Join(keep, ", ")
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = d[:i]
	}
	return d
}

func (c *completer) teams(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		teams, err := s.ListTeams(ctx)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, t := range teams {
			out = append(out, cobra.CompletionWithDesc(t.Name, describe(t.Spec.DisplayName)))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// environments are those of the team given with --team; without one, those of every team.
func (c *completer) environments(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var teams []v1alpha1.Team
		if name := flag(cmd, "team"); name != "" {
			t, err := s.GetTeam(ctx, name)
			if err != nil {
				return nil
			}
			teams = []v1alpha1.Team{*t}
		} else {
			var err error
			if teams, err = s.ListTeams(ctx); err != nil {
				return nil
			}
		}
		var out []cobra.Completion
		for _, t := range teams {
			for _, e := range t.Spec.Environments {
				d := e.Description
				if len(teams) > 1 {
					d = describe("team "+t.Name, e.Description)
				}
				out = append(out, cobra.CompletionWithDesc(e.Name, describe(d)))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// clusters are those of --team, else of -n, else of every namespace the identity can list.
func (c *completer) clusters(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		ns := flag(cmd, "namespace")
		if team := flag(cmd, "team"); team != "" {
			t, err := s.GetTeam(ctx, team)
			if err != nil {
				return nil
			}
			ns = t.TeamNamespace()
		}
		list, err := s.ListClusters(ctx, ns)
		if err != nil && ns == "" {
			// Not allowed to list every namespace: list each team's.
			teams, terr := s.ListTeams(ctx)
			if terr != nil {
				return nil
			}
			for i := range teams {
				l, err := s.ListClusters(ctx, teams[i].TeamNamespace())
				if err == nil {
					list = append(list, l...)
				}
			}
		}
		var out []cobra.Completion
		for i := range list {
			cl := &list[i]
			out = append(out, cobra.CompletionWithDesc(cl.Name, describe("team "+cl.TeamName(), envDesc(cl.Environment()))))
		}
		return out
	})
	return names(out, toComplete, args), NoFile
}

func envDesc(env string) string {
	if env == "" {
		return "no environment"
	}
	return "environment " + env
}

// providers are the ProviderConfigs visible to --team (the platform's and the team's own),
// else every one the identity can list.
func (c *completer) providers(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var namespaces []string
		if team := flag(cmd, "team"); team != "" {
			t, err := s.GetTeam(ctx, team)
			if err != nil {
				return nil
			}
			namespaces = []string{t.TeamNamespace(), v1alpha1.PlatformNamespace}
		} else {
			namespaces = []string{""}
		}
		var out []cobra.Completion
		for _, ns := range namespaces {
			list, err := s.ListProviderConfigs(ctx, ns)
			if err != nil && ns == "" {
				list, err = s.ListProviderConfigs(ctx, v1alpha1.PlatformNamespace)
			}
			if err != nil {
				continue
			}
			for i := range list {
				pc := &list[i]
				out = append(out, cobra.CompletionWithDesc(pc.Name, describe(pc.Spec.Provider, pc.ScopeType()+" scope")))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// users are the e-mails of the User objects (for --as).
func (c *completer) users(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		users, err := s.ListUsers(ctx)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, u := range users {
			if u.Spec.Email != "" {
				out = append(out, cobra.CompletionWithDesc(u.Spec.Email, describe(u.Spec.DisplayName)))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// namespaces are the teams' namespaces and the platform's.
func (c *completer) namespaces(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		teams, err := s.ListTeams(ctx)
		if err != nil {
			return nil
		}
		out := []cobra.Completion{cobra.CompletionWithDesc(v1alpha1.PlatformNamespace, "the platform")}
		for i := range teams {
			out = append(out, cobra.CompletionWithDesc(teams[i].TeamNamespace(), "team "+teams[i].Name))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// accessUser completes EMAIL:ROLE: the members of --team (else the User objects) before
// the colon, the roles after it.
func (c *completer) accessUser(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if who, _, ok := strings.Cut(toComplete, ":"); ok {
		return withPrefix(who+":", roles, toComplete), NoFile
	}
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var out []cobra.Completion
		if team := flag(cmd, "team"); team != "" {
			if t, err := s.GetTeam(ctx, team); err == nil {
				for _, u := range t.Spec.Access.Users {
					out = append(out, cobra.CompletionWithDesc(u.Name+":", "team "+string(u.Role)))
				}
				return out
			}
		}
		users, err := s.ListUsers(ctx)
		if err != nil {
			return nil
		}
		for _, u := range users {
			if u.Spec.Email != "" {
				out = append(out, u.Spec.Email+":")
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile | cobra.ShellCompDirectiveNoSpace
}

// accessGroup completes NAME:ROLE[:IDENTITY-PROVIDER]: the groups of --team before the
// first colon, the roles after it, the identity providers after the second.
func (c *completer) accessGroup(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	parts := strings.SplitN(toComplete, ":", 3)
	switch len(parts) {
	case 2:
		return withPrefix(parts[0]+":", roles, toComplete), NoFile
	case 3:
		out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
			idps, err := s.ListIdentityProviders(ctx)
			if err != nil {
				return nil
			}
			var out []cobra.Completion
			for _, p := range idps {
				out = append(out, cobra.CompletionWithDesc(parts[0]+":"+parts[1]+":"+p.Name, describe(p.Spec.DisplayName)))
			}
			return out
		})
		return names(out, toComplete, nil), NoFile
	}
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		team := flag(cmd, "team")
		if team == "" {
			return nil
		}
		t, err := s.GetTeam(ctx, team)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, g := range t.Spec.Access.Groups {
			out = append(out, cobra.CompletionWithDesc(g.Name+":", "team "+string(g.Role)))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile | cobra.ShellCompDirectiveNoSpace
}

// withPrefix puts prefix before each value and keeps those starting with toComplete.
func withPrefix(prefix string, values []cobra.Completion, toComplete string) []cobra.Completion {
	out := make([]cobra.Completion, 0, len(values))
	for _, v := range values {
		out = append(out, prefix+v)
	}
	return filter(out, toComplete)
}

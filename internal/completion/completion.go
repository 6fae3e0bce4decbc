// Package completion is the shell completion of both binaries: cobra's `completion
// bash|zsh|fish|powershell` command, and dynamic completion of team, environment, cluster,
// provider and policy names and of flag values (output formats, roles, provider types,
// scopes, network modes, the option values policies allow).
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
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
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
Beyond command and flag names, completion knows team, environment, cluster, provider and
ClusterCreationPolicy names, team members and groups, addons (installed, or allowed for the
team), each command's output formats, roles (after the colon of --access-user and
--access-group), provider types, scopes and network modes, for cluster create's --image,
--network, --nutanix-cluster and --storage-container the values the policies that apply to
the cluster (its --team, --environment and provider) allow, and for --kubernetes-version
the --team's default and allowed versions. Names are read from the manifests given with
--manifests on the line being completed (or BUTLER_MANIFESTS, or the config file), else
from the cluster of your kubeconfig. Each completion waits at most 2 seconds and stays
silent when the cluster cannot be reached.

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
// binary: the name of one team, environment, cluster, provider, policy or user, or cluster
// names (any number). A test checks that every path is a command of butlerctl or butleradm.
var argNames = map[string]string{
	"team get": "team", "team access": "team", "team set-limits": "team", "team delete": "team", "context use": "team",
	"team member add": "new member", "team member remove": "member", "team member set-role": "member",
	"team group add": "new group", "team group remove": "group", "team group set-role": "group",
	"env get": "environment", "env update": "environment", "env delete": "environment",
	"env migrate": "clusters",
	"cluster get": "cluster", "cluster delete": "cluster", "cluster scale": "cluster", "cluster edit": "cluster",
	"cluster kubeconfig": "cluster", "addon list": "cluster", "addon install": "addon install", "addon uninstall": "addon", "cluster freeze": "cluster", "cluster thaw": "cluster",
	"cluster upgrade": "cluster", "cluster describe": "cluster", "cluster events": "cluster", "cluster extend": "cluster",
	"provider get": "provider", "provider delete": "provider", "provider rotate-credentials": "provider",
	"policy get": "policy", "policy update": "policy", "policy delete": "policy",
	"user get": "user",
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
	case "policy":
		return first(c.policies)
	case "user":
		return first(c.users)
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
	if option, ok := optionFlags[fl.Name]; ok && path == "cluster create" {
		return c.optionValues(option)
	}
	switch fl.Name {
	case "output":
		return outputFormats
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
		if strings.HasPrefix(path, "policy") {
			return fixed(policyScopes)
		}
		return fixed(scopes)
	case "provider-type":
		return fixed(providerTypes)
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
	case "kubernetes-version":
		return c.versions
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

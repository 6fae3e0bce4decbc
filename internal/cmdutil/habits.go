package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/names"
)

// flagSuggestion is the flag of cmd a mistyped one probably meant ("--tema" for --team),
// by the one rule for near names (names.Closest); "" when err is no unknown flag or none
// is close.
func flagSuggestion(cmd *cobra.Command, err error) string {
	typed, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	typed, _, _ = strings.Cut(typed, "=")
	var known []string
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		fs.VisitAll(func(fl *pflag.Flag) {
			if !fl.Hidden {
				known = append(known, fl.Name)
			}
		})
	}
	if s := names.Closest(typed, known); s != "" {
		return "--" + s
	}
	return ""
}

// verbs are the verbs kubectl puts first (`kubectl get pods`) that these tools take after
// the noun (`butlerctl cluster list`), as gh does.
var verbs = map[string]bool{"get": true, "list": true, "describe": true, "delete": true, "create": true,
	"scale": true, "update": true, "upgrade": true, "edit": true, "apply": true}

// nouns are the spellings of each noun a kubectl user may type: singular, plural, kind.
var nouns = map[string]string{
	"cluster": "cluster", "clusters": "cluster", "tenantcluster": "cluster", "tenantclusters": "cluster", "tc": "cluster",
	"team": "team", "teams": "team",
	"env": "env", "envs": "env", "environment": "env", "environments": "env",
	"provider": "provider", "providers": "provider", "providerconfig": "provider", "providerconfigs": "provider",
	"policy": "policy", "policies": "policy", "clustercreationpolicy": "policy", "clustercreationpolicies": "policy",
	"user": "user", "users": "user", "addon": "addon", "addons": "addon",
	"network": "network", "networks": "network", "networkpool": "network", "networkpools": "network",
}

// verbFirst answers a kubectl-style verb-first command (`get clusters`, `delete cluster
// x`) at the top of root with the command in this tool's order, or "" when args are not
// one or the tool has no such command. Nothing runs: it is a usage error.
func verbFirst(root *cobra.Command, args []string) string {
	if root.HasParent() || len(args) < 2 || !verbs[args[0]] {
		return ""
	}
	noun, ok := nouns[strings.ToLower(args[1])]
	if !ok {
		return ""
	}
	verb, rest := args[0], args[2:]
	if verb == "get" && (len(rest) == 0 || strings.HasSuffix(args[1], "s")) {
		verb = "list"
	}
	for _, v := range []string{verb, "get"} {
		if c, left, err := root.Find([]string{noun, v}); err == nil && c.Name() == v && len(left) == 0 {
			return strings.Join(append([]string{root.CommandPath(), noun, v}, rest...), " ")
		}
		if verb != "describe" {
			break // only describe falls back to get
		}
	}
	if c, _, err := root.Find([]string{noun}); err == nil && c.Name() == noun {
		return root.CommandPath() + " " + noun + " --help"
	}
	return ""
}

// verbFirstError is the usage error for a verb-first command.
func verbFirstError(root *cobra.Command, args []string, right string) error {
	return UsageError("unknown command %q for %q: the noun comes first here, as in gh\n\nDid you mean this?\n\t%s\n\nRun '%s --help' for usage.",
		args[0], root.CommandPath(), right, root.CommandPath())
}

// withFlagSuggestion adds the suggestion for a mistyped flag to a flag error's message.
func withFlagSuggestion(cmd *cobra.Command, err error) string {
	msg := err.Error()
	if s := flagSuggestion(cmd, err); s != "" {
		msg += fmt.Sprintf("\n\nDid you mean this?\n\t%s\n", s)
	}
	return msg
}

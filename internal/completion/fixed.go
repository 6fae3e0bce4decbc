package completion

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Fixed values: output formats, roles, provider types, scopes and modes.

// outputFormats are the -o formats the command being completed declares (output.Register);
// a command that declares none takes no -o, and nothing is offered.
func outputFormats(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	desc := map[string]string{
		output.Table:         "columns or text for people (default)",
		output.Wide:          "the table with more columns",
		output.JSON:          "JSON, for scripts",
		output.YAML:          "YAML",
		output.Name:          "names only, one a line",
		output.JSONPath:      "a JSONPath template: jsonpath={.metadata.name}",
		output.GoTemplate:    "a Go template: go-template={{.metadata.name}}",
		output.CustomColumns: "columns of your own: custom-columns=NAME:.metadata.name",
	}
	var out []cobra.Completion
	for _, f := range strings.Split(cmd.Annotations[output.AnnotationFormats], ",") {
		switch {
		case f == "":
		case strings.HasSuffix(f, "-file"):
			out = append(out, cobra.CompletionWithDesc(f+"=", "the same, read from a file"))
		case desc[f] != "" && (f == output.JSONPath || f == output.GoTemplate || f == output.CustomColumns):
			out = append(out, cobra.CompletionWithDesc(f+"=", desc[f]))
		default:
			out = append(out, cobra.CompletionWithDesc(f, desc[f]))
		}
	}
	out = filter(out, toComplete)
	if len(out) == 1 && strings.HasSuffix(strings.SplitN(out[0], "\t", 2)[0], "=") {
		return out, NoFile | cobra.ShellCompDirectiveNoSpace // the value follows the "="
	}
	return out, NoFile
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

var policyScopes = []cobra.Completion{
	cobra.CompletionWithDesc("platformWide", "every team and environment"),
	cobra.CompletionWithDesc("team", "one team (--team), in all its environments"),
	cobra.CompletionWithDesc("teamAndEnvironment", "one environment (--environment) of one team (--team)"),
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

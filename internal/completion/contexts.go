package completion

import (
	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
)

// contexts are the contexts of the kubeconfig (--kubeconfig, else $KUBECONFIG, else
// ~/.kube/config); reading it sends nothing to a server.
func (c *completer) contexts(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = flag(cmd, "kubeconfig")
	cfg, err := rules.Load()
	if err != nil {
		return nil, NoFile
	}
	var out []cobra.Completion
	for name, ctx := range cfg.Contexts {
		out = append(out, cobra.CompletionWithDesc(name, describe("cluster "+ctx.Cluster, "user "+ctx.AuthInfo)))
	}
	return names(out, toComplete, nil), NoFile
}

// Package shared is what the webhook commands share: the objects they print (manifests
// prints the configuration and RBAC, install the whole bundle) and the credentials the
// server and the installation reach the API server with.
package shared

import (
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// ObjectsDoc is objects for the printer: the objects for the structured formats, YAML
// documents (cli-runtime's YAML printer, which separates them with ---) for people.
func ObjectsDoc(objs []runtime.Object) (output.Doc, error) {
	var d output.Doc
	var docs []runtime.Object
	for _, ro := range objs {
		clean, err := output.Clean(ro)
		if err != nil {
			return d, err
		}
		d.Items = append(d.Items, output.Item{Object: ro})
		docs = append(docs, &unstructured.Unstructured{Object: clean})
	}
	d.Text = func(w io.Writer) error {
		yp := &printers.YAMLPrinter{}
		for _, obj := range docs {
			if err := yp.PrintObj(obj, w); err != nil {
				return err
			}
		}
		return nil
	}
	return d, nil
}

// RESTConfig returns a loader of the commands' own credentials: kubeconfig (--kubeconfig),
// else $KUBECONFIG, else ~/.kube/config, else (in a pod) the ServiceAccount; kubeContext
// (--context) picks a context. No impersonation: the server reads, and the installation
// applies, as themselves. Nothing is read until the loader is called.
func RESTConfig(kubeconfig, kubeContext string) func() (*rest.Config, error) {
	return func() (*rest.Config, error) {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = kubeconfig
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
		cfg, err := cc.ClientConfig()
		if err != nil {
			return nil, cmdutil.UsageError("loading credentials for the API server: %v", err)
		}
		return cfg, nil
	}
}

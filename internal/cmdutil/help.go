package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// AnnotationDetails holds the prose of a command's help that comes after its usage and
// flags: how it works, for whoever reads on. The help opens with what the command does,
// the usage and the examples; the reference pages put the details back under the
// description.
const AnnotationDetails = "butler.help/details"

// Details sets cmd's help prose printed below the flags.
func Details(cmd *cobra.Command, text string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[AnnotationDetails] = strings.TrimSpace(text)
}

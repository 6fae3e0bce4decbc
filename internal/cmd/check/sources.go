package check

import (
	"fmt"
	"path"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
)

// notRenderedFindings are the Flux Kustomizations of other sources and the Helm charts of
// the tree: what they apply is not judged, a warning each; with --complete, which
// declares the tree the whole platform, an error, since Butler objects may hide there.
func (o *Options) notRenderedFindings(head *gitops.Tree) []check.Finding {
	sev, why := check.SeverityWarning, " (--complete makes it an error)"
	if o.WholePlatform {
		sev, why = check.SeverityError, " (an error under --complete: the tree is declared the whole platform)"
	}
	var fs []check.Finding
	for _, e := range head.Elsewhere {
		msg := fmt.Sprintf("sourced from %s, not this repository: not rendered, what it applies is not judged", e.Source)
		if e.Why != "" {
			msg = e.Why + ": not rendered, what it installs is not judged"
		} else if e.Kind == "GitRepository" {
			msg += "; --source NAMESPACE/NAME names a GitRepository that is this repository"
		}
		field := e.Field
		if field == "" {
			field = "spec.sourceRef"
		}
		fs = append(fs, check.Finding{File: e.Object.Source.File, Line: e.Object.Line(field), Kind: e.Object.Kind,
			Namespace: e.Object.Namespace, Name: e.Object.Name, Field: field, Message: msg + why,
			Rule: RuleNotRendered, Severity: sev})
	}
	for _, c := range head.Charts {
		fs = append(fs, check.Finding{File: path.Join(c, "Chart.yaml"), Line: 1,
			Message: "a Helm chart no HelmRelease or Argo CD Application of the tree installs: not rendered, its templates are not judged" + why,
			Rule:    RuleNotRendered, Severity: sev})
	}
	return fs
}

// validSources checks --source: each NAMESPACE/NAME of a GitRepository.
func validSources(sources []string) error {
	for _, s := range sources {
		ns, name, ok := strings.Cut(s, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return cmdutil.UsageError("--source: %q is not NAMESPACE/NAME of a Flux GitRepository", s)
		}
	}
	return nil
}

package gate

import (
	"fmt"
	"path"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// RuleUnknownKind and RuleNotApplied are the loader's findings that are not decode errors.
const (
	RuleUnknownKind = "unknown-kind"
	RuleNotApplied  = "not-applied"
	RuleNotJudged   = "field-not-judged"
	// RuleNotKubernetes is a document that is YAML but not a Kubernetes object.
	RuleNotKubernetes = "not-kubernetes"
	// RuleNotRendered is what the tree holds and the check does not render: a Flux
	// Kustomization of another source, a Helm chart.
	RuleNotRendered = "not-rendered"
)

// loaderFindings are what the loader saw and did not judge: documents of unknown groups,
// fields the repository's CRDs declare that the tools do not know, and files no entry
// point applies.
func (g *run) loaderFindings(head *gitops.Tree) []check.Finding {
	var extra []check.Finding
	for _, u := range head.Unknown {
		extra = append(extra, g.unknownFinding(u, check.SeverityWarning))
	}
	for _, src := range head.NotObjects {
		extra = append(extra, g.notObjectFinding(src, check.SeverityWarning))
	}
	notJudged := func(ref manifest.Ref, fields []manifest.FieldOrigin) {
		for _, nj := range fields {
			extra = append(extra, check.Finding{File: nj.File, Line: nj.Line, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name,
				Field: nj.Field, Message: nj.Field + ": declared by the repository's CustomResourceDefinition but not known to these tools yet: not judged",
				Rule: RuleNotJudged, Severity: check.SeverityWarning})
		}
	}
	for _, obj := range head.Raw.Objects {
		notJudged(manifest.Ref{Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name}, obj.NotJudged)
	}
	for i := range head.Raw.Clusters.Len() {
		c := head.Raw.Clusters.At(i)
		notJudged(manifest.Ref{Kind: v1alpha1.KindTenantCluster, Namespace: c.Namespace, Name: c.Name}, head.Raw.Clusters.NotJudged(i))
	}
	extra = append(extra, g.notRenderedFindings(head)...)
	for _, u := range head.Unreached {
		extra = append(extra, check.Finding{File: u.Source.File, Line: u.Source.Line, Kind: u.Kind, Namespace: u.Namespace, Name: u.Name,
			Message: "no Flux Kustomization or Argo CD Application of the repository applies this file: not judged", Rule: RuleNotApplied, Severity: check.SeverityWarning})
	}
	return extra
}

// unknown is the report of documents of unknown API groups under --strict: each an error,
// as a document that does not decode, and nothing else judged.
func (g *run) unknown(t *gitops.Tree) *check.Report {
	if !g.Strict || len(t.Unknown)+len(t.NotObjects) == 0 {
		return nil
	}
	var fs []check.Finding
	for _, u := range t.Unknown {
		fs = append(fs, g.unknownFinding(u, check.SeverityError))
	}
	for _, src := range t.NotObjects {
		fs = append(fs, g.notObjectFinding(src, check.SeverityError))
	}
	return check.Unreadable(fs)
}

// notObjectFinding words a document that is not a Kubernetes object (a tool's
// configuration beside the manifests): not judged, and how to leave its file out.
func (g *run) notObjectFinding(src manifest.Source, sev check.Severity) check.Finding {
	msg := "not a Kubernetes object (no apiVersion, kind or metadata): not judged; --exclude or .butlerignore leaves its file out"
	if sev == check.SeverityError {
		msg += g.strictWhy()
	} else {
		msg += " (--strict makes it an error)"
	}
	return check.Finding{File: src.File, Line: src.Line, Message: msg, Rule: RuleNotKubernetes, Severity: sev}
}

// strictWhy says why a document not judged is an error, naming the strictness setting as
// the user can type it.
func (g *run) strictWhy() string {
	switch g.StrictFrom {
	case StrictFromEnv:
		return " (an error because BUTLER_STRICT is set; BUTLER_STRICT=false makes it a warning)"
	case StrictFromConfig:
		return " (an error because the config file sets strict: true; --strict=false makes it a warning)"
	}
	return " (an error under --strict; without it, a warning)"
}

// unknownFinding words a document of an unknown group, naming the strictness setting as
// the user can type it.
func (g *run) unknownFinding(u manifest.Object, sev check.Severity) check.Finding {
	msg := fmt.Sprintf("%s %s is of an API group the check does not know: it is not judged", u.APIVersion, u.Kind)
	if sev == check.SeverityError {
		msg += g.strictWhy()
	} else {
		msg += " (--strict makes it an error)"
	}
	return check.Finding{File: u.Source.File, Line: u.Line("apiVersion"), Kind: u.Kind, Namespace: u.Namespace, Name: u.Name,
		Field: "apiVersion", Type: "NotSupported", Message: msg, Rule: RuleUnknownKind, Severity: sev}
}

// notRenderedFindings are the Flux Kustomizations of other sources and the Helm charts of
// the tree: what they apply is not judged, a warning each; with --complete, which
// declares the tree the whole platform, an error, since Butler objects may hide there.
func (g *run) notRenderedFindings(head *gitops.Tree) []check.Finding {
	sev, why := check.SeverityWarning, " (--complete makes it an error)"
	if g.Complete {
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
	for _, u := range head.Unrendered {
		o := u.Object
		fs = append(fs, check.Finding{File: o.Source.File, Line: o.Line(u.Field), Kind: o.Kind,
			Namespace: o.Namespace, Name: o.Name, Field: u.Field,
			Message: u.Field + " not rendered (" + o.Kind + " " + u.Reason + "): what it applies is not judged" + why,
			Rule:    RuleNotRendered, Severity: sev})
	}
	for _, c := range head.Charts {
		fs = append(fs, check.Finding{File: path.Join(c, "Chart.yaml"), Line: 1,
			Message: "a Helm chart no HelmRelease or Argo CD Application of the tree installs: not rendered, its templates are not judged" + why,
			Rule:    RuleNotRendered, Severity: sev})
	}
	return fs
}

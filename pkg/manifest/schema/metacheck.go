package schema

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// apimachinery's metadata rules run regular expressions over every label and annotation of
// every object, a tenth of a Load's time; the keys, and many values, are the same in every
// object of a tree. A rule's answer depends on the string alone, so the strings found good
// are remembered (bounded, for the process) and only the others go through the rules; an
// object with a string that is not known good gets apimachinery's own findings, whole.

// goodMax bounds each set of remembered strings.
const goodMax = 1 << 13

// goodSet remembers strings a rule accepted.
type goodSet struct {
	m   sync.Map // string -> struct{}
	n   atomic.Int32
	max int32 // of strings remembered; 0: goodMax
}

// good reports whether s passes the rule ok, asking ok only for a string not seen before.
func (g *goodSet) good(s string, ok func(string) bool) bool {
	if _, hit := g.m.Load(s); hit {
		return true
	}
	if !ok(s) {
		return false
	}
	limit := g.max
	if limit == 0 {
		limit = goodMax
	}
	// Counted only while there is room: a count that went on would wrap around past
	// MaxInt32 in a long run and let the set grow without bound.
	if g.n.Load() < limit && g.n.Add(1) <= limit {
		g.m.Store(s, struct{}{})
	}
	return true
}

var (
	goodLabelKeys, goodLabelValues, goodAnnotationKeys, goodNamespaces goodSet
)

func labelKeyOK(k string) bool { return len(metav1validation.ValidateLabelName(k, nil)) == 0 }

func labelValueOK(v string) bool { return len(validation.IsValidLabelValue(v)) == 0 }

func annotationKeyOK(k string) bool { return len(validation.IsQualifiedName(strings.ToLower(k))) == 0 }

func namespaceOK(ns string) bool {
	return len(apimachineryvalidation.ValidateNamespaceName(ns, false)) == 0
}

// validateLabels is metav1validation.ValidateLabels, its findings in the order of the keys
// (apimachinery's follow the map's, which changes from run to run).
func validateLabels(l map[string]string, p *field.Path) field.ErrorList {
	for k, v := range l {
		if (!qualifiedName(k) && !goodLabelKeys.good(k, labelKeyOK)) ||
			(!labelValue(v) && !goodLabelValues.good(v, labelValueOK)) {
			var errs field.ErrorList
			for _, k := range slices.Sorted(maps.Keys(l)) {
				errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: l[k]}, p)...)
			}
			return errs
		}
	}
	return nil
}

// validateAnnotations is apimachineryvalidation.ValidateAnnotations, its findings in the
// order of the keys.
func validateAnnotations(a map[string]string, p *field.Path) field.ErrorList {
	bad := false
	for k := range a {
		if !goodAnnotationKeys.good(k, annotationKeyOK) {
			bad = true
			break
		}
	}
	if !bad && apimachineryvalidation.ValidateAnnotationsSize(a) == nil {
		return nil
	}
	errs := field.ErrorList{}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		// apimachinery's rule: a qualified name, whatever its case.
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
	}
	if apimachineryvalidation.ValidateAnnotationsSize(a) != nil {
		errs = append(errs, field.TooLong(p, "", apimachineryvalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

// validateNamespaceName is apimachineryvalidation.ValidateNamespaceName.
func validateNamespaceName(ns string) []string {
	if goodNamespaces.good(ns, namespaceOK) {
		return nil
	}
	return apimachineryvalidation.ValidateNamespaceName(ns, false)
}

// validateName is apimachineryvalidation.NameIsDNSSubdomain: names differ from object to
// object, so a name is first tried against a plain reading of the rule, which accepts
// only names the rule accepts; any other goes to the rule itself for its findings.
func validateName(name string) []string {
	if dnsSubdomain(name) {
		return nil
	}
	return apimachineryvalidation.NameIsDNSSubdomain(name, false)
}

// dnsSubdomain reports an RFC 1123 subdomain as apimachinery defines it: at most 253
// characters, dot-separated labels of lower-case letters, digits and '-', each starting
// and ending with a letter or digit.
func dnsSubdomain(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for s != "" {
		label, rest, _ := strings.Cut(s, ".")
		if label == "" || !alnum(label[0]) || !alnum(label[len(label)-1]) {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !alnum(c) && c != '-' {
				return false
			}
		}
		if rest == "" && len(label) < len(s) {
			return false // a trailing dot
		}
		s = rest
	}
	return true
}

func alnum(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }

// Labels, like names, are read plainly first; what the plain reading does not accept
// goes to the remembered rules, then to apimachinery.

// labelValue reports a label value apimachinery accepts: at most 63 characters, empty or
// letters, digits, '-', '_' and '.', starting and ending with a letter or digit.
func labelValue(v string) bool {
	if v == "" {
		return true
	}
	return len(v) <= validation.LabelValueMaxLength && qualifiedPart(v)
}

// qualifiedName reports a qualified name (a label key) apimachinery accepts: a name of
// at most 63 characters as in a label value, not empty, after an optional DNS subdomain
// prefix and '/'.
func qualifiedName(k string) bool {
	prefix, name, found := strings.Cut(k, "/")
	if !found {
		prefix, name = "", k
	} else if !dnsSubdomain(prefix) {
		return false
	}
	return name != "" && len(name) <= validation.LabelValueMaxLength && qualifiedPart(name)
}

// qualifiedPart is the pattern of a label value or a qualified name's name, not empty.
func qualifiedPart(s string) bool {
	alpha := func(c byte) bool { return alnum(c) || (c >= 'A' && c <= 'Z') }
	if !alpha(s[0]) || !alpha(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alpha(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// metadata applies the API server's ObjectMeta rules that matter in manifests.
func (v *validator) metadata(md map[string]any, namespaced bool) {
	name, _ := md["name"].(string)
	gen, _ := md["generateName"].(string)
	ns, _ := md["namespace"].(string)
	v.metadataRules(name, gen, ns, stringMap(md["labels"]), stringMap(md["annotations"]), namespaced)
}

// metadataRules are metadata's rules over its fields; labels and annotations are nil
// where metadata has none.
func (v *validator) metadataRules(name, gen, ns string, labels, annotations map[string]string, namespaced bool) {
	p := metadataPath
	switch {
	case name == "" && gen == "":
		v.errs = append(v.errs, field.Required(p.Child("name"), "name or generateName is required"))
	case name != "":
		for _, msg := range validateName(name) {
			v.errs = append(v.errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	// The server clears the namespace of cluster-scoped objects, so it is only checked on
	// namespaced ones.
	if ns != "" && namespaced {
		for _, msg := range validateNamespaceName(ns) {
			v.errs = append(v.errs, field.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	if labels != nil {
		v.errs = append(v.errs, validateLabels(labels, labelsPath)...)
	}
	if annotations != nil {
		v.errs = append(v.errs, validateAnnotations(annotations, annotationsPath)...)
	}
}

// Paths of metadata, shared: a field path is never changed, only extended.
var (
	metadataPath    = field.NewPath("metadata")
	labelsPath      = metadataPath.Child("labels")
	annotationsPath = metadataPath.Child("annotations")
)

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, _ := e.(string)
		out[k] = s
	}
	return out
}

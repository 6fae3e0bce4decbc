package providerutil

import (
	"fmt"
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Problems checks one ProviderConfig as the server would: the webhook's rules and the
// document's schema rules (policy.ValidateProviderConfig, in the server's words), then
// what else its CRD schema and the metadata rules refuse (manifest.Validate), leaving out
// a field the first already reported. Problems of an object read from a file carry its
// file and lines; of one built in memory, only the field.
func Problems(o manifest.Object) []*manifest.DecodeError {
	pc, ok := o.Obj.(*v1alpha1.ProviderConfig)
	if !ok {
		return nil
	}
	if o.Kind == "" {
		o.Kind = v1alpha1.KindProviderConfig
	}
	if o.Name == "" {
		o.Name, o.Namespace = pc.Name, pc.Namespace
	}
	var out []*manifest.DecodeError
	seen := map[string]bool{}
	for _, e := range policy.ValidateProviderConfig(pc) {
		out = append(out, at(o, e.Field, e.ErrorBody()))
		seen[e.Field] = true
	}
	for _, de := range cmdutil.DecodeErrors(manifest.Validate(o)) {
		if !seen[de.Field] {
			out = append(out, de)
		}
	}
	if o.Source.File != "" {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	}
	return out
}

// at is a problem at a field of o.
func at(o manifest.Object, field, msg string) *manifest.DecodeError {
	return &manifest.DecodeError{
		File: o.Source.File, Doc: o.Source.Doc, Item: o.Source.Item, Line: o.Line(field),
		Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Field: field, Msg: msg,
	}
}

// FieldError renders a problem in the server's field-error form, "<field>: <Type>: <detail>".
func FieldError(de *manifest.DecodeError) string {
	if de.Field == "" {
		return de.Msg
	}
	return de.Field + ": " + de.Msg
}

// Aggregate renders problems as the server's aggregate: one as is, several as "[a, b]",
// duplicates removed.
func Aggregate(problems []*manifest.DecodeError) string {
	var msgs []string
	seen := map[string]bool{}
	for _, p := range problems {
		m := FieldError(p)
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// CheckManifests checks every ProviderConfig among objs (Problems), refuses two of the
// same namespace and name, and checks the key names of each credentials Secret found
// among objs against what its provider needs. Values are never looked at. invalid holds
// the ProviderConfigs with a problem of their own or of their Secret.
func CheckManifests(objs []manifest.Object) (pcs []manifest.Object, probs []*manifest.DecodeError, invalid map[*v1alpha1.ProviderConfig]bool) {
	invalid = map[*v1alpha1.ProviderConfig]bool{}
	first := map[string]manifest.Object{}
	for _, o := range objs {
		pc, ok := o.Obj.(*v1alpha1.ProviderConfig)
		if !ok {
			continue
		}
		pcs = append(pcs, o)
		own := Problems(o)
		ns := pc.Namespace
		if ns == "" {
			ns = v1alpha1.PlatformNamespace
		}
		key := ns + "/" + pc.Name
		if f, dup := first[key]; dup {
			own = append(own, at(o, "metadata.name", fmt.Sprintf("duplicate ProviderConfig: also defined at %s", f.Source)))
		} else {
			first[key] = o
			if secret := findSecret(objs, pc); secret != nil && policy.RequiredCredentialKeys(pc.Spec.Provider) != nil {
				if err := policy.ValidateCredentials(pc.Spec.Provider, secretKeys(secret)); err != nil {
					field := "data"
					if u, ok := secret.Obj.(*unstructured.Unstructured); ok && u.Object["data"] == nil && u.Object["stringData"] != nil {
						field = "stringData"
					}
					own = append(own, at(*secret, field, fmt.Sprintf("%v (the credentials of ProviderConfig %q)", err, key)))
				}
			}
		}
		if len(own) > 0 {
			invalid[pc] = true
			probs = append(probs, own...)
		}
	}
	return pcs, probs, invalid
}

// TrustBundleWarning is the Nutanix trust-bundle warning for pc when its credentials
// Secret is among objs; "" when there is nothing to warn about, or no Secret to read (a
// sealed or encrypted one).
func TrustBundleWarning(objs []manifest.Object, pc *v1alpha1.ProviderConfig) string {
	secret := findSecret(objs, pc)
	if secret == nil {
		return ""
	}
	ns, name := SecretRef(pc)
	return policy.NutanixTrustBundleWarning(pc, ns, name, secretKeys(secret))
}

// findSecret finds pc's credentials Secret among objs.
func findSecret(objs []manifest.Object, pc *v1alpha1.ProviderConfig) *manifest.Object {
	ns, name := SecretRef(pc)
	for i := range objs {
		o := &objs[i]
		if o.Kind == "Secret" && o.APIVersion == "v1" && o.Name == name && (o.Namespace == ns || o.Namespace == "") {
			return o
		}
	}
	return nil
}

// secretKeys are the key names under a Secret manifest's data and stringData.
func secretKeys(o *manifest.Object) []string {
	u, ok := o.Obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	var keys []string
	for _, f := range []string{"data", "stringData"} {
		m, _ := u.Object[f].(map[string]any)
		for k := range m {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// SortProblems orders problems by file, then line.
func SortProblems(probs []*manifest.DecodeError) {
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].File != probs[j].File {
			return probs[i].File < probs[j].File
		}
		return probs[i].Line < probs[j].Line
	})
}

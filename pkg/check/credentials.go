package check

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// RuleCredentialsPlaintext is the finding on a provider's credentials committed as a plain
// Secret.
const RuleCredentialsPlaintext = "credentials-plaintext"

// PlaintextCredentials finds the plain v1 Secrets that a ProviderConfig's credentialsRef
// names: credentials in git are readable by everyone who can read the repository. A
// SealedSecret, or a Secret SOPS encrypted, of that name is how they belong in a tree.
func PlaintextCredentials(set *manifest.Set) []Finding {
	var fs []Finding
	for _, pc := range set.ProviderConfigs() {
		ref := pc.Spec.CredentialsRef
		if ref.Name == "" {
			continue
		}
		ns := ref.Namespace
		if ns == "" {
			ns = pc.Namespace
		}
		sec := set.Find("Secret", ns, ref.Name)
		if sec == nil || sec.APIVersion != "v1" {
			continue
		}
		u, ok := sec.Obj.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		if _, sops := u.Object["sops"]; sops {
			continue
		}
		field := "data"
		if _, ok := u.Object["data"]; !ok {
			field = "stringData"
		}
		f := findingAt(sec, field, "Forbidden", fmt.Sprintf(
			"credentials committed in plain text: ProviderConfig %q's credentialsRef names this Secret; commit it sealed (a SealedSecret, kubeseal) or SOPS-encrypted instead, and rotate the credentials this one exposed",
			pc.Namespace+"/"+pc.Name), RuleCredentialsPlaintext, SeverityError)
		fs = append(fs, f)
	}
	return fs
}

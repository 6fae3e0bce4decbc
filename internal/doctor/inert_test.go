package doctor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// hostile sets a terminal's title, clears its screen and reverses what follows.
const hostile = "\x1b]0;pwned\x07\x1b[2J\u202eevil"

// A CRD as the tools know it, established, with fields added to its schema.
func servedCRD(t *testing.T, name string, fields ...string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	k, err := known()
	if err != nil {
		t.Fatal(err)
	}
	c := k[name].DeepCopy()
	c.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for _, f := range fields {
		spec.Properties[f] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	}
	c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return c
}

// Whatever the server supplies (a CRD's schema field names, its version, the messages of
// its errors) reaches the report inert: no check's text can set a terminal's title, clear
// its screen or reverse a line, in any output format.
func TestServerTextIsInert(t *testing.T) {
	teams := "teams." + v1alpha1.GroupVersion.Group
	api := fakeAPI(t, map[string]any{
		"/version": version.Info{GitVersion: "v1.35.4" + hostile},
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + teams: servedCRD(t, teams, hostile),
		// A list the server answers with a message of its own.
		"/apis/apps/v1/namespaces/butler-system/deployments": metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Reason: metav1.StatusReasonBadRequest, Code: 400, Message: "refused " + hostile,
		},
	})
	r, err := Run(context.Background(), fakeStore(t, api.URL), Options{Scope: Operator})
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, c := range r.Checks {
		for _, s := range []string{c.Name, c.Detail, c.Next} {
			if inert.Text(s) != s {
				t.Errorf("%s: not inert: %q", c.Name, s)
			}
			if strings.Contains(s, "^[]0;pwned") {
				quoted++
			}
		}
	}
	// The API version, the CRD's field and the error message, shown rather than dropped.
	if quoted < 3 {
		t.Errorf("the hostile text is quoted %d times, want 3 or more: %+v", quoted, r.Checks)
	}
}

// A server URL with credentials in it (https://user:password@host) is printed without its
// password: where the report names the server, and in the errors that quote it.
func TestServerURLRedacted(t *testing.T) {
	api := fakeAPI(t, map[string]any{})
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // refuses: client-go's error quotes the URL
	for _, host := range []string{api.URL, dead.URL} {
		withCreds := strings.Replace(host, "http://", "http://ci:s3cret@", 1)
		r, err := Run(context.Background(), fakeStore(t, withCreds), Options{Scope: Operator})
		if err != nil {
			t.Fatal(err)
		}
		api := r.Checks[0]
		if !strings.Contains(api.Detail, "http://ci:xxxxx@127.0.0.1:") {
			t.Errorf("the server is not named: %+v", api)
		}
		for _, c := range r.Checks {
			if strings.Contains(c.Name+c.Detail+c.Next, "s3cret") {
				t.Errorf("the password is printed: %+v", c)
			}
		}
	}
}

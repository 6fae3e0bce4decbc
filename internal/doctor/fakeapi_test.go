package doctor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// fakeAPI is an API server answering GET path with the JSON of objects[path] (/version:
// Kubernetes v1.35.4 unless given), and 404 Not Found (a Status) for any other path.
func fakeAPI(t *testing.T, objects map[string]any) *httptest.Server {
	t.Helper()
	if _, ok := objects["/version"]; !ok {
		objects["/version"] = version.Info{Major: "1", Minor: "35", GitVersion: "v1.35.4"}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		obj, ok := objects[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(obj)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeStore is the worked example's store, live on a fake API server at host.
func fakeStore(t *testing.T, host string) *storetest.Store {
	t.Helper()
	s := storetest.Payments(t, "olivia@example.com")
	s.Live = &storetest.Server{Config: &rest.Config{Host: host}, Source: "kubeconfig test, context test"}
	return s
}

// byName is the checks of r by name.
func byName(r Report) map[string]Check {
	out := map[string]Check{}
	for _, c := range r.Checks {
		out[c.Name] = c
	}
	return out
}

package live

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// server records each request that reaches it and answers a GET with obj.
type recorder struct {
	mu   sync.Mutex
	seen []string
	obj  string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.RawQuery+" "+string(body))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, r.obj)
}

func roundTrip(t *testing.T, rt http.RoundTripper, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const tc = `{"apiVersion":"butler.butlerlabs.dev/v1alpha1","kind":"TenantCluster","metadata":{"name":"c","uid":"u1","resourceVersion":"5"},"spec":{"workers":{"replicas":2}}}`

// Server dry run: every write carries dryRun=All, a delete's in its options too; reads
// pass as they are.
func TestServerDryRun(t *testing.T) {
	rec := &recorder{obj: tc}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	rt := serverDryRun{http.DefaultTransport}
	url := srv.URL + "/apis/butler.butlerlabs.dev/v1alpha1/namespaces/n/tenantclusters/c"
	roundTrip(t, rt, http.MethodGet, url, "", "")
	roundTrip(t, rt, http.MethodPatch, url+"?fieldManager=x", "application/merge-patch+json", `{"spec":{}}`)
	roundTrip(t, rt, http.MethodDelete, url, "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1"}}`)
	if len(rec.seen) != 3 || rec.seen[0] != "GET  " || !strings.HasPrefix(rec.seen[1], "PATCH dryRun=All&fieldManager=x ") {
		t.Fatalf("seen %q", rec.seen)
	}
	var opts map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(rec.seen[2], " ", 3)[2]), &opts); err != nil {
		t.Fatal(err)
	}
	if dr, _ := opts["dryRun"].([]any); len(dr) != 1 || dr[0] != "All" || opts["preconditions"] == nil {
		t.Errorf("delete options %v", opts)
	}
}

// Client dry run: no write reaches the server; a create is answered with what was sent,
// a merge patch with the object read and patched, a stale resourceVersion or uid with the
// server's 409.
func TestClientDryRun(t *testing.T) {
	rec := &recorder{obj: tc}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	rt := clientDryRun{http.DefaultTransport}
	url := srv.URL + "/apis/butler.butlerlabs.dev/v1alpha1/namespaces/n/tenantclusters/c"
	if code, body := roundTrip(t, rt, http.MethodPost, url, "application/json", `{"x":1}`); code != 201 || body != `{"x":1}` {
		t.Errorf("create: %d %s", code, body)
	}
	code, body := roundTrip(t, rt, http.MethodPatch, url, "application/merge-patch+json", `{"metadata":{"resourceVersion":"5"},"spec":{"workers":{"replicas":4}}}`)
	if code != 200 || !strings.Contains(body, `"replicas":4`) || !strings.Contains(body, `"uid":"u1"`) {
		t.Errorf("patch: %d %s", code, body)
	}
	if code, body := roundTrip(t, rt, http.MethodPatch, url, "application/merge-patch+json", `{"metadata":{"resourceVersion":"4"},"spec":{}}`); code != 409 || !strings.Contains(body, `"reason":"Conflict"`) {
		t.Errorf("stale patch: %d %s", code, body)
	}
	if code, _ := roundTrip(t, rt, http.MethodDelete, url, "application/json", `{"preconditions":{"uid":"u2"}}`); code != 409 {
		t.Errorf("delete of another uid: %d", code)
	}
	if code, _ := roundTrip(t, rt, http.MethodDelete, url, "application/json", `{"preconditions":{"uid":"u1"}}`); code != 200 {
		t.Errorf("delete: %d", code)
	}
	for _, s := range rec.seen {
		if !strings.HasPrefix(s, "GET ") {
			t.Errorf("a write reached the server: %q", s)
		}
	}
}

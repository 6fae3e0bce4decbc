package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Dry-run modes of a store (Options.DryRun), as --dry-run names them.
const (
	DryRunClient = "client"
	DryRunServer = "server"
)

// maxDryRunBody bounds what the client dry run reads of a request or of the object it
// patches: a TenantCluster, Team or Secret, far below it.
const maxDryRunBody = 8 << 20

// dryRun makes every write through cfg a dry run, below every method of the store, so no
// command can forget it: "server" sends each write with dryRun=All (RBAC, admission and
// webhooks run, nothing is stored), as kubectl --dry-run=server; "client" sends no write
// at all and answers it here with what the server would store, without its defaults:
// a create or replace with the object sent, a merge patch with the object read and
// patched (a stale resourceVersion is a 409 Conflict, as the server's), a delete with
// the object read (missing: the server's 404). Reads pass unchanged.
func dryRun(cfg *rest.Config, mode string) {
	switch mode {
	case DryRunServer:
		cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { return serverDryRun{next} })
	case DryRunClient:
		cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { return clientDryRun{next} })
	}
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

type serverDryRun struct{ next http.RoundTripper }

func (t serverDryRun) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isWrite(req.Method) {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	q := r.URL.Query()
	q.Set("dryRun", metav1.DryRunAll)
	r.URL.RawQuery = q.Encode()
	if req.Method == http.MethodDelete && req.Body != nil {
		// A delete's options in its body win over the query: dryRun goes there too.
		body, err := fileio.ReadAll(req.Body, maxDryRunBody)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if body, err = dryRunDeleteBody(body); err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return t.next.RoundTrip(r)
}

// dryRunDeleteBody is a delete's DeleteOptions with dryRun=All.
func dryRunDeleteBody(body []byte) ([]byte, error) {
	opts := map[string]any{}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &opts); err != nil {
			return nil, fmt.Errorf("internal error: a delete's options are no JSON: %w", err)
		}
	}
	if opts["kind"] == nil {
		opts["kind"], opts["apiVersion"] = "DeleteOptions", "v1"
	}
	opts["dryRun"] = []string{metav1.DryRunAll}
	return json.Marshal(opts)
}

type clientDryRun struct{ next http.RoundTripper }

func (t clientDryRun) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isWrite(req.Method) {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		b, err := fileio.ReadAll(req.Body, maxDryRunBody)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	switch req.Method {
	case http.MethodPost:
		return answer(req, http.StatusCreated, req.Header.Get("Content-Type"), body), nil
	case http.MethodPut:
		return answer(req, http.StatusOK, req.Header.Get("Content-Type"), body), nil
	}
	cur, resp, err := t.current(req)
	if err != nil || resp != nil {
		return resp, err
	}
	if req.Method == http.MethodDelete {
		return t.deleted(req, cur, body)
	}
	return t.patched(req, cur, body)
}

// current reads the object a patch or delete names; resp is the server's answer when it
// is not the object (a 404, a 403), returned as the write's.
func (t clientDryRun) current(req *http.Request) ([]byte, *http.Response, error) {
	get, err := http.NewRequestWithContext(req.Context(), http.MethodGet, req.URL.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	get.Header = req.Header.Clone()
	get.Header.Del("Content-Type")
	get.Header.Set("Accept", "application/json")
	q := get.URL.Query()
	q.Del("fieldManager")
	q.Del("dryRun")
	get.URL.RawQuery = q.Encode()
	resp, err := t.next.RoundTrip(get)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp, nil
	}
	defer resp.Body.Close()
	b, err := fileio.ReadAll(resp.Body, maxDryRunBody)
	return b, nil, err
}

// patched applies a JSON merge patch to cur, with the patch's resourceVersion as the
// precondition the server would test.
func (t clientDryRun) patched(req *http.Request, cur, patch []byte) (*http.Response, error) {
	if ct := req.Header.Get("Content-Type"); ct != "application/merge-patch+json" {
		return nil, fmt.Errorf("internal error: the client dry run cannot apply a patch of type %q", ct)
	}
	var p struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	if err := precondition(req, cur, "", p.Metadata.ResourceVersion); err != nil {
		return status(req, err), nil
	}
	out, err := jsonpatch.MergePatch(cur, patch)
	if err != nil {
		return nil, err
	}
	return answer(req, http.StatusOK, "application/json", out), nil
}

// deleted answers a delete with the object as it is, when the DeleteOptions'
// preconditions hold.
func (t clientDryRun) deleted(req *http.Request, cur, body []byte) (*http.Response, error) {
	var opts metav1.DeleteOptions
	if len(body) > 0 {
		if err := json.Unmarshal(body, &opts); err != nil {
			return nil, err
		}
	}
	var uid, rv string
	if pre := opts.Preconditions; pre != nil {
		if pre.UID != nil {
			uid = string(*pre.UID)
		}
		if pre.ResourceVersion != nil {
			rv = *pre.ResourceVersion
		}
	}
	if err := precondition(req, cur, uid, rv); err != nil {
		return status(req, err), nil
	}
	return answer(req, http.StatusOK, "application/json", cur), nil
}

// precondition is the server's test of a write's uid and resourceVersion against the
// object read: a 409 Conflict when either differs.
func precondition(req *http.Request, cur []byte, uid, rv string) *apierrors.StatusError {
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(cur, &obj); err != nil {
		return apierrors.NewInternalError(err)
	}
	m := obj.Metadata
	if (uid != "" && string(m.UID) != uid) || (rv != "" && m.ResourceVersion != rv) {
		gr := schema.GroupResource{Resource: resourceOf(req)}
		return apierrors.NewConflict(gr, m.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}

// resourceOf is the resource a request's path names (.../RESOURCE/NAME).
func resourceOf(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2]
}

func status(req *http.Request, err *apierrors.StatusError) *http.Response {
	s := err.Status()
	s.Kind, s.APIVersion = "Status", "v1"
	b, _ := json.Marshal(s)
	return answer(req, int(s.Code), "application/json", b)
}

func answer(req *http.Request, code int, contentType string, body []byte) *http.Response {
	if contentType == "" {
		contentType = "application/json"
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": []string{contentType}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// The webhooks, by the names and paths of Butler's own (docs/rules.md §5, §8, §9), so a
// configuration written for the controller's webhooks points at this server unchanged.
const (
	NameTenantCluster  = "vtenantcluster.kb.io"
	NameTeam           = "vteam.kb.io"
	NameProviderConfig = "vproviderconfig.kb.io"
	// NameCreationPolicy and PathCreationPolicy follow the same kubebuilder convention.
	NameCreationPolicy = "vclustercreationpolicy.kb.io"

	PathTenantCluster  = "/validate-butler-butlerlabs-dev-v1alpha1-tenantcluster"
	PathTeam           = "/validate-butler-butlerlabs-dev-v1alpha1-team"
	PathProviderConfig = "/validate-butler-butlerlabs-dev-v1alpha1-providerconfig"
	PathCreationPolicy = "/validate-butler-butlerlabs-dev-v1alpha1-clustercreationpolicy"
)

// maxBodyBytes bounds a review: the API server's own request limit is 3 MiB, and a review
// of an update carries the object twice.
const maxBodyBytes = 8 << 20

// defaultTimeout bounds the reads of one review when the API server does not say (it
// sends ?timeout=, the webhook's timeoutSeconds).
const defaultTimeout = 10 * time.Second

// maxTimeout is the longest ?timeout= taken: the API server's longest webhook call
// (timeoutSeconds is at most 30). A client asking for more, which is no API server, has
// its body and its review cut off there all the same.
var maxTimeout = 30 * time.Second

// reviewTimeout is how long the review may take: ?timeout=, at most maxTimeout.
func reviewTimeout(r *http.Request) time.Duration {
	t, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil || t <= 0 {
		return defaultTimeout
	}
	return min(t, maxTimeout)
}

// Handler answers AdmissionReviews (admission.k8s.io/v1) at the five paths with the
// policy library's decisions. It is an http.Handler; Server adds TLS, health and shutdown.
type Handler struct {
	reader  Reader
	log     *slog.Logger
	decoder runtime.Decoder
	mode    atomic.Int32
	routes  map[string]route

	bodies   atomic.Int64 // bytes of request bodies held (bodyBudget)
	inflight atomic.Int32 // reviews being read or decided (maxInFlight)
	off      rulesOff     // rules beyond Butler's switched off (beyond.go)
}

type route struct {
	webhook  string
	kind     string
	validate func(ctx context.Context, req *admissionv1.AdmissionRequest) verdict
}

// NewHandler returns a handler reading through r; log nil discards the logs.
func NewHandler(r Reader, log *slog.Logger) (*Handler, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	scheme := runtime.NewScheme()
	if err := admissionv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	h := &Handler{reader: r, log: log, decoder: serializer.NewCodecFactory(scheme).UniversalDeserializer()}
	h.routes = map[string]route{
		PathTenantCluster:  {NameTenantCluster, v1alpha1.KindTenantCluster, h.tenantCluster},
		PathTeam:           {NameTeam, v1alpha1.KindTeam, h.team},
		PathProviderConfig: {NameProviderConfig, v1alpha1.KindProviderConfig, h.providerConfig},
		PathCreationPolicy: {NameCreationPolicy, v1alpha1.KindClusterCreationPolicy, h.creationPolicy},
		PathNetworkPool:    {NameNetworkPool, v1alpha1.KindNetworkPool, h.networkPool},
	}
	return h, nil
}

// Mode is how the handler answers.
type Mode int32

// Modes.
const (
	// Enforce: refusals reach the client (the default).
	Enforce Mode = iota
	// Audit: every review is evaluated and a refusal logged, but the answer is allowed.
	Audit
	// Dormant: every review is answered allowed without being evaluated or read for, as
	// when Butler's webhooks are switched off; for a registration that must cost nothing
	// until it is switched on.
	Dormant
)

func (m Mode) String() string {
	switch m {
	case Enforce:
		return "enforce"
	case Audit:
		return "audit"
	case Dormant:
		return "dormant"
	}
	return fmt.Sprintf("Mode(%d)", int32(m))
}

// SetMode switches the mode; safe to call while serving.
func (h *Handler) SetMode(m Mode) { h.mode.Store(int32(m)) }

// Mode reports the mode.
func (h *Handler) Mode() Mode { return Mode(h.mode.Load()) }

// Handles reports whether p is one of the webhook paths.
func (h *Handler) Handles(p string) bool {
	_, ok := h.routes[cleanPath(p)]
	return ok
}

// cleanPath tolerates a doubled slash: a configuration whose service path starts with "/"
// turned into a URL by joining with "/" (as envtest does) asks for "//validate-…".
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	return path.Clean("/" + strings.TrimLeft(p, "/"))
}

// verdict is a handler's answer before it becomes an AdmissionResponse.
type verdict struct {
	allowed bool
	code    int32  // the Status code of a refusal: 403 denied, 400 bad object, 500 internal
	message string // the refusal's message, exactly as the contract words it
	rules   []string
	// warnings go back with the answer, allowed or not (the API server shows them).
	warnings []string
}

func allow() verdict { return verdict{allowed: true} }

// denied is admission.Denied: 403, reason Forbidden, the message as is.
func denied(msg string, rules ...string) verdict {
	return verdict{code: http.StatusForbidden, message: msg, rules: rules}
}

// errored is admission.Errored: the request fails closed with the error as the message.
func errored(code int32, err error) verdict {
	return verdict{code: code, message: err.Error()}
}

// badRequest is an HTTP-level refusal: no review to answer (or none worth trusting).
type badRequest struct {
	code int
	msg  string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rt, ok := h.routes[cleanPath(r.URL.Path)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	timeout := reviewTimeout(r)
	answerBy := start.Add(timeout - answerMargin(timeout))
	if n := h.inflight.Add(1); n > maxInFlight {
		h.inflight.Add(-1)
		h.shed(w, r, rt, fmt.Sprintf("webhook busy: %d reviews in flight; retry", maxInFlight))
		return
	}
	defer h.inflight.Add(-1)
	// The body must arrive in time to be answered: a slow sender is cut off there.
	_ = http.NewResponseController(w).SetReadDeadline(answerBy)
	review, held, bad := h.readReview(w, r)
	defer h.bodies.Add(-held)
	if bad != nil {
		if bad.code == http.StatusServiceUnavailable {
			h.shed(w, r, rt, bad.msg)
			return
		}
		h.log.Warn("malformed admission review", "webhook", rt.webhook, "path", r.URL.Path,
			"remote", r.RemoteAddr, "status", bad.code, "error", bad.msg)
		writeBadRequest(w, bad)
		return
	}
	req := review.Request
	ctx, cancel := context.WithDeadline(r.Context(), answerBy)
	defer cancel()

	mode := h.Mode()
	if mode == Dormant {
		h.log.Debug("dormant: allowed unevaluated", "webhook", rt.webhook, "uid", string(req.UID), "operation", string(req.Operation),
			"namespace", req.Namespace, "name", req.Name, "user", req.UserInfo.Username)
		writeReview(w, req.UID, allow())
		return
	}
	var v verdict
	if req.Kind.Group != v1alpha1.GroupVersion.Group || req.Kind.Kind != rt.kind {
		v = errored(http.StatusBadRequest, fmt.Errorf("webhook %s validates %s, not %s", rt.webhook, rt.kind, gvkString(req.Kind)))
	} else {
		v = h.safeValidate(ctx, rt, req)
		if !v.allowed && v.code >= 500 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			v.message = fmt.Sprintf("webhook %s could not decide within the API server's timeout (%s): %s", rt.webhook, timeout, v.message)
		}
	}
	enforced := mode == Enforce
	attrs := []any{
		"webhook", rt.webhook, "uid", string(req.UID), "operation", string(req.Operation),
		"kind", req.Kind.Kind, "namespace", req.Namespace, "name", req.Name,
		"user", req.UserInfo.Username, "allowed", v.allowed || !enforced,
		"duration", time.Since(start).Round(time.Microsecond).String(),
	}
	if !v.allowed {
		attrs = append(attrs, "code", v.code, "message", v.message)
		if len(v.rules) > 0 {
			attrs = append(attrs, "rules", v.rules)
		}
	}
	switch {
	case v.allowed:
		h.log.Info("admitted", attrs...)
	case !enforced:
		h.log.Warn("audit: would refuse", attrs...)
		v = allow()
	case v.code >= 500:
		h.log.Error("refused: internal error", attrs...)
	default:
		h.log.Info("refused", attrs...)
	}
	writeReview(w, req.UID, v)
}

// safeValidate runs a validator, turning a panic into a fail-closed answer: a bug in one
// review must neither crash the server nor let the request through.
func (h *Handler) safeValidate(ctx context.Context, rt route, req *admissionv1.AdmissionRequest) (v verdict) {
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("panic in validator", "webhook", rt.webhook, "uid", string(req.UID), "panic", fmt.Sprint(p))
			v = errored(http.StatusInternalServerError, fmt.Errorf("internal error in webhook %s: %v", rt.webhook, p))
		}
	}()
	return rt.validate(ctx, req)
}

// readReview decodes the request body as an admission.k8s.io/v1 AdmissionReview with a
// request; anything else is a bad request, never a panic. held is what the body holds
// of bodyBudget, to be given back when the review is answered.
func (h *Handler) readReview(w http.ResponseWriter, r *http.Request) (_ *admissionv1.AdmissionReview, held int64, _ *badRequest) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return nil, 0, &badRequest{http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed: an AdmissionReview is POSTed", r.Method)}
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, 0, &badRequest{http.StatusBadRequest, fmt.Sprintf("content type %q: want application/json", ct)}
		}
	}
	if r.ContentLength > maxBodyBytes {
		return nil, 0, &badRequest{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBodyBytes)}
	}
	br := &bodyReader{h: h}
	busy := &badRequest{http.StatusServiceUnavailable, fmt.Sprintf("webhook busy: request bodies in flight exceed %d bytes; retry", bodyBudget)}
	body, err := br.readAll(http.MaxBytesReader(w, r.Body, maxBodyBytes), r.ContentLength)
	held = br.held
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.Is(err, errBudget):
			return nil, held, busy
		case errors.As(err, &tooBig):
			return nil, held, &badRequest{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBodyBytes)}
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, held, &badRequest{http.StatusRequestTimeout, "the request body did not arrive in time to be answered"}
		}
		return nil, held, &badRequest{http.StatusBadRequest, "reading the request body: " + err.Error()}
	}
	if len(body) == 0 {
		return nil, held, &badRequest{http.StatusBadRequest, "empty request body: want an AdmissionReview"}
	}
	// The decoder would take a body without apiVersion and kind for what it is asked to
	// decode into; the API server always sends them, so their absence is malformed.
	var tm metav1.TypeMeta
	if err := json.Unmarshal(body, &tm); err != nil {
		return nil, held, &badRequest{http.StatusBadRequest, "decoding the AdmissionReview: " + err.Error()}
	}
	if tm.APIVersion != admissionv1.SchemeGroupVersion.String() || tm.Kind != "AdmissionReview" {
		gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
		return nil, held, &badRequest{http.StatusBadRequest, fmt.Sprintf("got %s: want an AdmissionReview of admission.k8s.io/v1", gvkPtrString(&gvk))}
	}
	review := &admissionv1.AdmissionReview{}
	obj, gvk, err := h.decoder.Decode(body, nil, review)
	if err != nil {
		return nil, held, &badRequest{http.StatusBadRequest, "decoding the AdmissionReview: " + err.Error()}
	}
	if obj != review || gvk == nil || *gvk != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return nil, held, &badRequest{http.StatusBadRequest, fmt.Sprintf("got %s: want an AdmissionReview of admission.k8s.io/v1", gvkPtrString(gvk))}
	}
	if review.Request == nil {
		return nil, held, &badRequest{http.StatusBadRequest, "the AdmissionReview has no request"}
	}
	if review.Request.UID == "" {
		return nil, held, &badRequest{http.StatusBadRequest, "the AdmissionReview request has no uid"}
	}
	return review, held, nil
}

func writeBadRequest(w http.ResponseWriter, bad *badRequest) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(bad.code)
	_ = json.NewEncoder(w).Encode(&metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure,
		Code:     int32(bad.code),
		Reason:   metav1.StatusReasonBadRequest,
		Message:  bad.msg,
	})
}

func writeReview(w http.ResponseWriter, uid types.UID, v verdict) {
	resp := &admissionv1.AdmissionResponse{UID: uid, Allowed: v.allowed, Warnings: v.warnings}
	if v.allowed {
		resp.Result = &metav1.Status{Code: http.StatusOK}
	} else {
		st := &metav1.Status{Code: v.code, Message: v.message}
		if v.code == http.StatusForbidden {
			st.Reason = metav1.StatusReasonForbidden
		}
		resp.Result = st
	}
	out := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Response: resp,
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(&out); err != nil {
		// The client went away; nothing else to do.
		return
	}
}

func gvkString(k metav1.GroupVersionKind) string {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}.String()
}

func gvkPtrString(k *schema.GroupVersionKind) string {
	if k == nil || k.Empty() {
		return "an object without apiVersion and kind"
	}
	return k.String()
}

// decodeInto decodes a raw object of a review into a typed one of the expected kind.
func (h *Handler) decodeInto(raw runtime.RawExtension, into runtime.Object, what string) error {
	if len(raw.Raw) == 0 {
		return fmt.Errorf("the request has no %s", what)
	}
	obj, gvk, err := h.decoder.Decode(raw.Raw, nil, into)
	if err != nil {
		return fmt.Errorf("decoding %s: %w", what, err)
	}
	if obj != into {
		return fmt.Errorf("decoding %s: got %s", what, gvkPtrString(gvk))
	}
	return nil
}

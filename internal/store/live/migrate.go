package live

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file implements store.Migrator on a live cluster (docs/rules.md §10).

// The migration's REST client has no client-side rate limiter (client-go builds none for a
// negative QPS). What keeps a migration polite to a shared API server is the command's
// bound on clusters in flight (--concurrency, two sequential requests each), and the
// server's own flow control (API Priority and Fairness), whose 429 answers client-go
// retries. A token bucket on top would only cap the migration below what the server can
// take: at the 500 requests per second this once was, 1,000 clusters could never take less
// than two seconds, however many cores the API server had.
const MigrationQPS = -1

// annotationRemovalTimeout bounds the second patch, which runs even after an interrupt so
// that no cluster keeps the annotation.
const annotationRemovalTimeout = 30 * time.Second

// annotationRemovalAttempts is how often the second patch is tried on a transient error.
const annotationRemovalAttempts = 4

// migrationClients holds each Store's migration REST client, built on first use.
var migrationClients sync.Map // *Store -> rest.Interface

// migrationClient is the Butler REST client with the migration limits.
func (s *Store) migrationClient() (rest.Interface, error) {
	if c, ok := migrationClients.Load(s); ok {
		return c.(rest.Interface), nil
	}
	// The store's configuration, deadlines and User-Agent included; only the limiter goes.
	cfg := rest.CopyConfig(s.config)
	cfg.QPS, cfg.Burst, cfg.RateLimiter = MigrationQPS, 0, nil
	c, err := butlerclient.New(cfg)
	if err != nil {
		return nil, err
	}
	actual, _ := migrationClients.LoadOrStore(s, rest.Interface(c))
	return actual.(rest.Interface), nil
}

// MigrationPatch is the first patch of a migration: a JSON merge patch (RFC 7386) that sets
// the environment label and the migration-operation annotation and nothing else, with the
// resourceVersion the caller read as a precondition (none when empty).
func MigrationPatch(resourceVersion, env string) ([]byte, error) {
	md := map[string]any{
		"labels":      map[string]string{v1alpha1.LabelEnvironment: env},
		"annotations": map[string]string{v1alpha1.AnnotationMigration: v1alpha1.MigrationAnnotationValue},
	}
	if resourceVersion != "" {
		md["resourceVersion"] = resourceVersion
	}
	return json.Marshal(map[string]any{"metadata": md})
}

// annotationRemoval is the second patch: the annotation removed, nothing else touched.
var annotationRemoval = []byte(`{"metadata":{"annotations":{"` + v1alpha1.AnnotationMigration + `":null}}}`)

// MigrateCluster implements store.Migrator with two JSON merge patches on the
// tenantclusters resource. The first carries c's resourceVersion, so a cluster changed
// since the caller read it answers 409 Conflict and is left as it is. The second, removing
// the annotation, has no precondition (removing it is right whatever else changed), is
// retried on transient errors, and runs to the end even when ctx is cancelled: an
// interrupted migration must not leave a cluster with a standing bypass of the server's
// guard on the label. Server refusals come back as from every write of the store (a webhook
// denial is exit 4).
func (s *Store) MigrateCluster(ctx context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error) {
	res := store.MigrateResult{Location: s.Host()}
	client, err := s.migrationClient()
	if err != nil {
		return res, err
	}
	// Of the server's answer (the whole object) only the resourceVersion is read.
	patch := func(ctx context.Context, body []byte) (string, error) {
		result := client.Patch(types.MergePatchType).Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
			Body(body).Do(ctx)
		if err := result.Error(); err != nil {
			return "", err // the server's Status, as Into would return it
		}
		raw, err := result.Raw()
		if err != nil {
			return "", err
		}
		var out struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return "", err
		}
		return out.Metadata.ResourceVersion, nil
	}
	_, annotated := c.Annotations[v1alpha1.AnnotationMigration]
	if c.Labels[v1alpha1.LabelEnvironment] != env {
		body, err := MigrationPatch(c.ResourceVersion, env)
		if err != nil {
			return res, err
		}
		rv, err := patch(ctx, body)
		if err != nil {
			return res, apiError(err)
		}
		res.Labeled, res.ResourceVersion = true, rv
	} else if !annotated {
		res.Cleaned = true
		return res, nil
	}

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), annotationRemovalTimeout)
	defer cancel()
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		rv, err := patch(rctx, annotationRemoval)
		switch {
		case err == nil:
			res.Cleaned, res.ResourceVersion = true, rv
			return res, nil
		case apierrors.IsNotFound(err):
			// Deleted meanwhile: nothing is left behind.
			res.Cleaned = true
			return res, nil
		case attempt >= annotationRemovalAttempts || !transient(err) || rctx.Err() != nil:
			return res, apiError(err)
		}
		select {
		case <-time.After(delay):
		case <-rctx.Done():
		}
		delay *= 2
	}
}

// transient is true for errors worth trying again: anything but a refusal, an invalid
// request or a missing object.
func transient(err error) bool {
	switch {
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err), apierrors.IsInvalid(err),
		apierrors.IsBadRequest(err), apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err):
		return false
	}
	return true
}

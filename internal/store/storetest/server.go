package storetest

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Server is a store.Server made of the functions a test gives; a call whose function is
// not given fails with ErrNotGiven, so a test sees what it did not expect the command to do.
type Server struct {
	Annotate     func(ctx context.Context, c *v1alpha1.TenantCluster, key, value string) (*v1alpha1.TenantCluster, error)
	Page         func(ctx context.Context, namespace, selector string, fn func([]v1alpha1.TenantCluster, bool) error) error
	WatchAll     func(ctx context.Context, namespace, resourceVersion string) (watch.Interface, error)
	WatchOne     func(ctx context.Context, namespace, name, resourceVersion string) (watch.Interface, error)
	DryRunCreate func(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error)
	Secret       func(ctx context.Context, namespace, name string, keys ...string) (string, []byte, error)
	DeleteAsRead func(ctx context.Context, c *v1alpha1.TenantCluster, dryRun bool) error
	// Config is what Connection returns.
	Config *rest.Config
	// Source is what CredentialSource returns.
	Source string
}

// CredentialSource implements store.Server.
func (s *Server) CredentialSource() string { return s.Source }

// Connection implements store.Server.
func (s *Server) Connection() *rest.Config { return s.Config }

// ErrNotGiven is the error of a Server call whose function the test did not give.
var ErrNotGiven = errors.New("storetest: the test gave the server no such function")

var _ store.Server = (*Server)(nil)

// PageClusters implements store.Server.
func (s *Server) PageClusters(ctx context.Context, namespace, selector string, fn func([]v1alpha1.TenantCluster, bool) error) error {
	if s.Page == nil {
		return ErrNotGiven
	}
	return s.Page(ctx, namespace, selector, fn)
}

// WatchClusters implements store.Server.
func (s *Server) WatchClusters(ctx context.Context, namespace, resourceVersion string) (watch.Interface, error) {
	if s.WatchAll == nil {
		return nil, ErrNotGiven
	}
	return s.WatchAll(ctx, namespace, resourceVersion)
}

// WatchCluster implements store.Server.
func (s *Server) WatchCluster(ctx context.Context, namespace, name, resourceVersion string) (watch.Interface, error) {
	if s.WatchOne == nil {
		return nil, ErrNotGiven
	}
	return s.WatchOne(ctx, namespace, name, resourceVersion)
}

// DryRunCreateCluster implements store.Server.
func (s *Server) DryRunCreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error) {
	if s.DryRunCreate == nil {
		return nil, nil, ErrNotGiven
	}
	return s.DryRunCreate(ctx, c, addons)
}

// SecretValue implements store.Server.
func (s *Server) SecretValue(ctx context.Context, namespace, name string, keys ...string) (string, []byte, error) {
	if s.Secret == nil {
		return "", nil, ErrNotGiven
	}
	return s.Secret(ctx, namespace, name, keys...)
}

// AnnotateCluster implements store.Server.
func (s *Server) AnnotateCluster(ctx context.Context, c *v1alpha1.TenantCluster, key, value string) (*v1alpha1.TenantCluster, error) {
	if s.Annotate == nil {
		return nil, ErrNotGiven
	}
	return s.Annotate(ctx, c, key, value)
}

// DeleteClusterAsRead implements store.Server.
func (s *Server) DeleteClusterAsRead(ctx context.Context, c *v1alpha1.TenantCluster, dryRun bool) error {
	if s.DeleteAsRead == nil {
		return ErrNotGiven
	}
	return s.DeleteAsRead(ctx, c, dryRun)
}

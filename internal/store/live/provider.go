package live

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file implements store.Providers on a live cluster: ProviderConfigs through the
// Butler REST client, their credential Secrets through client-go's core client. Secret
// values are sent and never read back into anything a caller gets: SecretKeys returns key
// names, the writes return the server's host.

// secrets is the core client's Secrets in a namespace. The client is built per call: the
// provider commands make a handful of requests, and client-go shares the transport.
type secretClient struct {
	c  rest.Interface
	ns string
}

func (s *Store) secrets(namespace string) (*secretClient, error) {
	return &secretClient{c: s.core, ns: namespace}, nil
}

func (c *secretClient) Create(ctx context.Context, sec *corev1.Secret, _ metav1.CreateOptions) (*corev1.Secret, error) {
	out := &corev1.Secret{}
	return out, c.c.Post().Namespace(c.ns).Resource("secrets").Body(sec).Do(ctx).Into(out)
}

func (c *secretClient) Update(ctx context.Context, sec *corev1.Secret, _ metav1.UpdateOptions) (*corev1.Secret, error) {
	out := &corev1.Secret{}
	return out, c.c.Put().Namespace(c.ns).Resource("secrets").Name(sec.Name).Body(sec).Do(ctx).Into(out)
}

func (c *secretClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Secret, error) {
	out := &corev1.Secret{}
	return out, c.c.Get().Namespace(c.ns).Resource("secrets").Name(name).Do(ctx).Into(out)
}

func (c *secretClient) Delete(ctx context.Context, name string, _ metav1.DeleteOptions) error {
	return c.c.Delete().Namespace(c.ns).Resource("secrets").Name(name).Do(ctx).Error()
}

// CreateSecret implements store.Providers.
func (s *Store) CreateSecret(ctx context.Context, secret *corev1.Secret) (store.Result, error) {
	c, err := s.secrets(secret.Namespace)
	if err != nil {
		return store.Result{}, err
	}
	if _, err := c.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// DeleteSecret implements store.Providers.
func (s *Store) DeleteSecret(ctx context.Context, namespace, name string) (store.Result, error) {
	c, err := s.secrets(namespace)
	if err != nil {
		return store.Result{}, err
	}
	if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// SecretKeys implements store.Providers. The Secret is read (the API has no way to list a
// Secret's keys alone) and only the key names leave this function.
func (s *Store) SecretKeys(ctx context.Context, namespace, name string) ([]string, error) {
	c, err := s.secrets(namespace)
	if err != nil {
		return nil, err
	}
	sec, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(sec.Data)+len(sec.StringData))
	for k := range sec.Data {
		keys = append(keys, k)
	}
	for k := range sec.StringData {
		if _, dup := sec.Data[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// ReplaceSecretData implements store.Providers with an update carrying the resourceVersion
// just read: a Secret changed in between is a Conflict rather than overwritten.
func (s *Store) ReplaceSecretData(ctx context.Context, namespace, name string, data map[string][]byte) (store.Result, error) {
	c, err := s.secrets(namespace)
	if err != nil {
		return store.Result{}, err
	}
	sec, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return store.Result{}, err
	}
	sec.Data = data
	sec.StringData = nil
	sec.ManagedFields = nil
	if _, err := c.Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// CreateProviderConfig implements store.Providers.
func (s *Store) CreateProviderConfig(ctx context.Context, pc *v1alpha1.ProviderConfig) (store.Result, error) {
	if err := s.create(ctx, pc.Namespace, "providerconfigs", pc); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: s.Host()}, nil
}

// DeleteProviderConfig implements store.Providers. The server's ProviderConfig webhook
// refuses the delete while a TenantCluster references it (when webhooks are on).
func (s *Store) DeleteProviderConfig(ctx context.Context, namespace, name string) (store.Result, error) {
	err := s.butler.Delete().Namespace(namespace).Resource("providerconfigs").Name(name).Do(ctx).Error()
	if err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

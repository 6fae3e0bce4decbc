package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// cleanup does what the outcome asks: delete after a success, else --on-failure. A second
// interrupt stops it and leaves the cluster to its TTL, saying so.
func (r *runner) cleanup(c *v1alpha1.TenantCluster, failed bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	go func() {
		select {
		case <-r.abandon:
			cancel()
		case <-ctx.Done():
		}
	}()
	var err error
	switch {
	case r.abandoned():
	case !failed || r.o.OnFailure == OnFailureDelete:
		err = r.delete(ctx, c)
	default:
		err = r.keep(ctx, c)
	}
	if r.abandoned() {
		exp, _, _ := clusterttl.Expiry(c)
		r.o.errorf("Interrupted again: TenantCluster %s/%s is left to its TTL: it expires %s, and butleradm cluster reap deletes it then", c.Namespace, c.Name, clusterttl.Format(exp))
		return nil
	}
	return err
}

func (r *runner) abandoned() bool {
	select {
	case <-r.abandon:
		return true
	default:
		return false
	}
}

// delete deletes the cluster as it is now (the uid read); one already gone counts as
// deleted, and so does one of its name this run did not create (it is left alone).
func (r *runner) delete(ctx context.Context, c *v1alpha1.TenantCluster) error {
	cur, err := r.s.GetCluster(ctx, c.Namespace, c.Name)
	if err == nil && !r.ours(cur) {
		r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s already gone: the cluster of that name now is not this run's, and is left alone", c.Name)
		return nil
	}
	if err == nil {
		_, err = r.s.DeleteCluster(ctx, cur)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting TenantCluster %s/%s: %w; it expires %s", c.Namespace, c.Name, err, c.Annotations[clusterttl.Annotation])
	}
	r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s deleted", c.Name)
	return nil
}

// keep moves the expiry to now plus --keep-for and, with freeze, makes the control plane
// read-only.
func (r *runner) keep(ctx context.Context, c *v1alpha1.TenantCluster) error {
	cs, err := r.s.Server()
	if err != nil {
		return err
	}
	cur, err := r.s.GetCluster(ctx, c.Namespace, c.Name)
	if err != nil {
		return err
	}
	if !r.ours(cur) {
		return fmt.Errorf("cannot keep TenantCluster %s/%s: it was deleted meanwhile, and the cluster of that name now is not this run's", c.Namespace, c.Name)
	}
	exp := r.o.Now().Add(r.o.KeepFor)
	if _, err := cs.AnnotateCluster(ctx, cur, clusterttl.Annotation, clusterttl.Format(exp)); err != nil {
		return fmt.Errorf("extending TenantCluster %s/%s: %w", c.Namespace, c.Name, err)
	}
	clusterttl.Set(c, exp)
	if r.o.OnFailure == OnFailureKeep {
		r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s kept: expires %s", c.Name, clusterttl.Format(exp))
		return nil
	}
	ref, ok := controlplane.RefOf(cur)
	if !ok {
		return fmt.Errorf("cannot freeze TenantCluster %s/%s: it has no control plane yet; it is kept and expires %s", c.Namespace, c.Name, clusterttl.Format(exp))
	}
	p, _ := controlplane.Permissions(controlplane.ReadOnly)
	if _, _, err := r.s.SetWritePermissions(ctx, ref.Namespace, ref.Name, p); err != nil {
		return fmt.Errorf("freezing TenantCluster %s/%s: %w; it is kept and expires %s", c.Namespace, c.Name, err, clusterttl.Format(exp))
	}
	r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s frozen: read-only; expires %s", c.Name, clusterttl.Format(exp))
	return nil
}

// Keys are the Secret keys of the admin kubeconfig, in order (as cluster kubeconfig
// reads them: the controller writes admin.conf, older ones value).
var Keys = []string{"admin.conf", "value"}

// adminKubeconfig reads the cluster's admin kubeconfig, waiting up to SecretWait for the
// controller to write it after Ready.
func adminKubeconfig(ctx context.Context, cs store.Server, c *v1alpha1.TenantCluster) ([]byte, error) {
	name := c.Name + "-admin-kubeconfig"
	if r := c.Status.KubeconfigSecretRef; r != nil && r.Name != "" {
		name = r.Name
	}
	ns := c.Status.TenantNamespace
	if ns == "" {
		return nil, cmdutil.NotFoundError("TenantCluster %s/%s is Ready but has no tenant namespace", c.Namespace, c.Name)
	}
	deadline := time.Now().Add(SecretWait)
	for {
		_, value, err := cs.SecretValue(ctx, ns, name, Keys...)
		switch {
		case err == nil:
			return value, nil
		case !apierrors.IsNotFound(err) && !errors.Is(err, store.ErrNoSecretKey):
			return nil, err
		case time.Now().After(deadline):
			return nil, cmdutil.NotFoundError("the admin kubeconfig of TenantCluster %s/%s is not there: Secret %s/%s", c.Namespace, c.Name, ns, name)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// writePrivate writes the kubeconfig to a new temporary file only its owner may read.
func writePrivate(value []byte) (string, error) {
	f, err := os.CreateTemp("", "butler-kubeconfig-*.yaml")
	if err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if _, err := f.Write(value); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}

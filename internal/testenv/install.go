package testenv

import (
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// RestoreInstallation puts back what a test may have broken on purpose to see the tools
// notice (doctor's scripts): every CRD of the project, re-created when deleted and
// established before it returns, and the webhook configuration as the harness registered
// it (caBundle, failure policies, addresses).
func (e *Env) RestoreInstallation(ctx context.Context) error {
	crds, err := loadCRDs()
	if err != nil {
		return err
	}
	var created []*apiextensionsv1.CustomResourceDefinition
	for _, c := range crds {
		cur := &apiextensionsv1.CustomResourceDefinition{}
		err := e.Client.Get(ctx, types.NamespacedName{Name: c.Name}, cur)
		switch {
		case err == nil && e.crdGenerations[c.Name] == cur.Generation:
			continue // as installed
		case err == nil:
			// Changed since installed (a field added to see doctor name it): the spec
			// as the project generates it, again.
			cur.Spec = c.Spec
			if err := e.Client.Update(ctx, cur); err != nil {
				return fmt.Errorf("restoring CRD %s: %w", c.Name, err)
			}
			e.crdGenerations[c.Name] = cur.Generation
			created = append(created, cur)
			continue
		case !apierrors.IsNotFound(err):
			return err
		}
		c = c.DeepCopy()
		if err := e.Client.Create(ctx, c); err != nil {
			return fmt.Errorf("re-creating CRD %s: %w", c.Name, err)
		}
		e.crdGenerations[c.Name] = c.Generation
		created = append(created, c)
	}
	if len(created) > 0 {
		if err := envtest.WaitForCRDs(e.Config, created, envtest.CRDInstallOptions{PollInterval: 50 * time.Millisecond, MaxTime: time.Minute}); err != nil {
			return err
		}
	}
	if e.webhook == nil || e.webhook.config == nil {
		return nil
	}
	cur := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := e.Client.Get(ctx, types.NamespacedName{Name: e.webhook.config.Name}, cur); err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(cur.Webhooks, e.webhook.config.Webhooks) {
		return nil
	}
	cur.Webhooks = e.webhook.config.Webhooks
	return e.Client.Update(ctx, cur)
}

// saveCRDGenerations records each CRD's generation as installed: a later one means a
// test changed it.
func (e *Env) saveCRDGenerations(ctx context.Context) error {
	var l apiextensionsv1.CustomResourceDefinitionList
	if err := e.Client.List(ctx, &l); err != nil {
		return err
	}
	e.crdGenerations = map[string]int64{}
	for _, c := range l.Items {
		e.crdGenerations[c.Name] = c.Generation
	}
	return nil
}

// saveWebhookConfiguration keeps the configuration as registered, for RestoreInstallation.
func (e *Env) saveWebhookConfiguration(ctx context.Context) error {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := e.Client.Get(ctx, types.NamespacedName{Name: webhook.Configuration(WebhookInstall).Name}, c); err != nil {
		return fmt.Errorf("reading the webhook configuration: %w", err)
	}
	e.webhook.config = c
	return nil
}

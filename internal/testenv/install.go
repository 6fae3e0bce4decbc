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
		err := e.Client.Get(ctx, types.NamespacedName{Name: c.Name}, &apiextensionsv1.CustomResourceDefinition{})
		if !apierrors.IsNotFound(err) {
			if err != nil {
				return err
			}
			continue
		}
		c = c.DeepCopy()
		if err := e.Client.Create(ctx, c); err != nil {
			return fmt.Errorf("re-creating CRD %s: %w", c.Name, err)
		}
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

// saveWebhookConfiguration keeps the configuration as registered, for RestoreInstallation.
func (e *Env) saveWebhookConfiguration(ctx context.Context) error {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := e.Client.Get(ctx, types.NamespacedName{Name: webhook.Configuration(WebhookInstall).Name}, c); err != nil {
		return fmt.Errorf("reading the webhook configuration: %w", err)
	}
	e.webhook.config = c
	return nil
}

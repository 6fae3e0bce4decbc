package cli_test

import (
	"context"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// cmdReaper runs butleradm as the webhook bundle's reaper CronJob runs it (its container's
// arguments, and any given after them), acting as the bundle's reaper ServiceAccount with
// the bundle's own RBAC for it applied, so the script sees what the installed CronJob can
// do, not what an admin can:
//
//	reaper [--dry-run]
//
// The RBAC objects are named test-*, so the next script starts without them. Its stdout
// and stderr are kept for the stdout and stderr commands that follow.
func cmdReaper(env *testenv.Env) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		b := webhook.Bundle{
			Install:      webhook.Install{Name: "test-webhook", Namespace: webhook.DefaultInstallNamespace, Service: webhook.DefaultService},
			Image:        "butleradm:test",
			Certs:        webhook.CertsCertManager,
			ReapSchedule: "*/15 * * * *",
		}
		objs, err := b.Objects()
		ts.Check(err)
		ctx := context.Background()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: b.Namespace}}
		if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			ts.Fatalf("reaper: %v", err)
		}
		var cronArgs []string
		account := ""
		for _, o := range objs {
			obj, ok := o.(client.Object)
			if !ok || !strings.HasSuffix(obj.GetName(), "-reaper") {
				continue
			}
			switch v := o.(type) {
			case *batchv1.CronJob: // not created: it is what runs, below
				cronArgs = v.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args
				account = v.Spec.JobTemplate.Spec.Template.Spec.ServiceAccountName
				continue
			}
			ts.Check(createOrReplace(ctx, env.Client, obj))
		}
		if account == "" || len(cronArgs) == 0 {
			ts.Fatalf("reaper: the bundle has no reaper CronJob")
		}
		as := "system:serviceaccount:" + b.Namespace + ":" + account
		args = append(append(cronArgs, args...), "--kubeconfig", ts.Getenv("KUBECONFIG_ADMIN"), "--as", as)
		err = ts.Exec("butleradm", args...)
		if err != nil && !neg {
			ts.Fatalf("reaper (butleradm %s): %v", strings.Join(args, " "), err)
		}
		if err == nil && neg {
			ts.Fatalf("reaper (butleradm %s) succeeded unexpectedly", strings.Join(args, " "))
		}
	}
}

// createOrReplace creates obj as the admin, or replaces the one of its name.
func createOrReplace(ctx context.Context, c client.Client, obj client.Object) error {
	err := c.Create(ctx, obj)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	cur := obj.DeepCopyObject().(client.Object)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		return err
	}
	obj.SetResourceVersion(cur.GetResourceVersion())
	return c.Update(ctx, obj)
}

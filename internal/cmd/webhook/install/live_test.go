package install_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/install"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// The self-signed bundle, applied to the test control plane by the command (server-side
// apply): every object is accepted, the webhook configuration calls the Service with the
// generated CA, and the wait for the Deployment ends at --timeout with the reason (the
// test control plane runs no pods). The configuration is deleted at once: with
// failurePolicy Fail and no server behind it, it would refuse every write.
func TestInstallAppliesTheBundle(t *testing.T) {
	env := testenv.Start(t)
	ctx := context.Background()
	const ns = "hooks-live"
	ios, _, out, errOut := iostreams.Test()
	f := &factory.Factory{IOStreams: ios, Now: time.Now, Options: &factory.GlobalOptions{
		Namespace: ns, Kubeconfig: env.Kubeconfig("admin"),
	}}
	cmd := install.NewCmd(f, nil)
	cmd.SetArgs([]string{"--certs", "self-signed", "--name", "hooks", "--service", "hooks-svc", "--timeout", "3s"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(ctx)
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "hooks"}})
	})
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if gerr := env.Client.Get(ctx, types.NamespacedName{Name: "hooks"}, vwc); gerr == nil {
		if derr := env.Client.Delete(ctx, vwc); derr != nil {
			t.Fatal(derr)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "deployment hooks-live/hooks not ready") {
		t.Fatalf("want a readiness timeout, got %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	for _, want := range []string{"namespace/hooks-live applied", "secret/hooks-tls applied", "deployment/hooks applied", "service/hooks-svc applied",
		"poddisruptionbudget/hooks applied", "validatingwebhookconfiguration/hooks applied"} {
		if !strings.Contains(errOut.String(), want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out.String()+errOut.String(), "PRIVATE KEY") {
		t.Error("the private key was printed")
	}

	svc := &corev1.Service{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "hooks-svc"}, svc); err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "hooks"}, d); err != nil {
		t.Fatal(err)
	}
	if len(d.ManagedFields) == 0 || d.ManagedFields[0].Manager != "butleradm-webhook-install" || d.ManagedFields[0].Operation != "Apply" {
		t.Errorf("Deployment not server-side applied: %+v", d.ManagedFields)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "hooks"}, &policyv1.PodDisruptionBudget{}); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "hooks-tls"}, sec); err != nil {
		t.Fatal(err)
	}
	if len(vwc.Webhooks) == 0 {
		t.Fatal("the webhook configuration was not stored")
	}
	for _, h := range vwc.Webhooks {
		ref := h.ClientConfig.Service
		if ref == nil || ref.Namespace != ns || ref.Name != svc.Name || *ref.Port != svc.Spec.Ports[0].Port {
			t.Errorf("%s calls %+v, not Service %s/%s", h.Name, ref, ns, svc.Name)
		}
		if !bytes.Equal(h.ClientConfig.CABundle, sec.Data["ca.crt"]) {
			t.Errorf("%s: caBundle is not the Secret's CA", h.Name)
		}
	}
	checkCert(t, sec.Data["tls.crt"], sec.Data["ca.crt"], "hooks-svc."+ns+".svc")
}

// TestInstallPrintsNoPrivateKey: a real install with a self-signed certificate, printed
// with -o yaml once the Deployment is ready (its status is set as a kubelet would, the
// test control plane running no pods), shows the Secret without its private key; the key
// is in the cluster only.
func TestInstallPrintsNoPrivateKey(t *testing.T) {
	env := testenv.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const ns = "hooks-key"
	ios, _, out, errOut := iostreams.Test()
	f := &factory.Factory{IOStreams: ios, Now: time.Now, Options: &factory.GlobalOptions{
		Namespace: ns, Kubeconfig: env.Kubeconfig("admin"), Output: "yaml", // -o yaml
	}}
	cmd := install.NewCmd(f, nil)
	cmd.SetArgs([]string{"--certs", "self-signed", "--name", "hooks-key", "--service", "hooks-key", "--timeout", "40s"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "hooks-key"}})
	})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	// The configuration would send every write to a server that is not there: gone at
	// once; the Deployment made ready as soon as it is there.
	key := types.NamespacedName{Namespace: ns, Name: "hooks-key"}
	var err error
	for ready := false; ; time.Sleep(100 * time.Millisecond) {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if env.Client.Get(ctx, types.NamespacedName{Name: "hooks-key"}, vwc) == nil {
			_ = env.Client.Delete(ctx, vwc)
		}
		d := &appsv1.Deployment{}
		if !ready && env.Client.Get(ctx, key, d) == nil {
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
			ready = env.Client.Status().Update(ctx, d) == nil
		}
		select {
		case err = <-done:
		default:
			continue
		}
		break
	}
	if err != nil {
		t.Fatalf("install: %v\nstderr: %s", err, errOut)
	}
	printed := out.String()
	if !strings.Contains(printed, "kind: Secret") || !strings.Contains(printed, "tls.crt:") {
		t.Fatalf("the printed objects lack the Secret and its certificate:\n%s", printed)
	}
	if strings.Contains(printed+errOut.String(), "PRIVATE KEY") || strings.Contains(printed, "tls.key") {
		t.Errorf("the private key was printed:\n%s", printed)
	}
	sec := &corev1.Secret{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "hooks-key-tls"}, sec); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sec.Data["tls.key"], []byte("PRIVATE KEY")) {
		t.Error("the Secret in the cluster has no private key")
	}
}

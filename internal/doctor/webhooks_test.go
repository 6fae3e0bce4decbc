package doctor

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// blackhole is the address of a server that accepts connections and never answers: a
// webhook whose TLS handshake waits until its caller gives up.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { _ = l.Close(); <-done })
	return l.Addr().String()
}

func urlWebhook(name, url string, ca []byte) admissionregistrationv1.ValidatingWebhook {
	fail := admissionregistrationv1.Fail
	return admissionregistrationv1.ValidatingWebhook{
		Name: name, FailurePolicy: &fail,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
		Rules: []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}},
	}
}

func webhookList(ws ...admissionregistrationv1.ValidatingWebhookConfiguration) map[string]any {
	return map[string]any{"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations": admissionregistrationv1.ValidatingWebhookConfigurationList{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfigurationList"},
		Items:    ws,
	}}
}

// A healthy webhook passes although slow webhooks of another product (validating every
// group, so checked too) come before it: each webhook's probe has a deadline of its own,
// and the slow ones use up only theirs, each reported as such.
func TestSlowWebhooksDoNotFailAHealthyOne(t *testing.T) {
	slow := "https://" + blackhole(t) + "/validate"
	// Any certificate will do as the CA bundle: the handshakes never get that far.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	tlsSrv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})

	other := admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "other-product"}}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		other.Webhooks = append(other.Webhooks, urlWebhook(n+".other.example.com", slow, ca))
	}
	// Butler's is served by a Service with a ready endpoint.
	hook := urlWebhook("validate.butler.butlerlabs.dev", "", ca)
	hook.ClientConfig.URL = nil
	hook.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "butler-system", Name: "butler-toolkit-webhook"}
	butler := admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "butler-toolkit-webhook", Labels: map[string]string{"app.kubernetes.io/name": "butler-toolkit-webhook"}},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook},
	}
	objects := webhookList(other, butler)
	objects["/apis/discovery.k8s.io/v1/namespaces/butler-system/endpointslices"] = discoveryv1.EndpointSliceList{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSliceList"},
		Items: []discoveryv1.EndpointSlice{{
			ObjectMeta: metav1.ObjectMeta{Name: "butler-toolkit-webhook-x", Namespace: "butler-system", Labels: map[string]string{discoveryv1.LabelServiceName: "butler-toolkit-webhook"}},
			Endpoints:  []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}},
		}},
	}
	api := fakeAPI(t, objects)
	// The slow webhooks together take longer than a check's deadline: under one deadline
	// for them all, Butler's would have none left.
	o := Options{Scope: Operator, checkTimeout: time.Second, probeTimeout: 500 * time.Millisecond}
	r, err := Run(context.Background(), fakeStore(t, api.URL), o)
	if err != nil {
		t.Fatal(err)
	}
	got := byName(r)
	if c := got["toolkit webhook butler-toolkit-webhook"]; c.Verdict != Pass {
		t.Errorf("the healthy webhook: %+v", c)
	}
	c := got["webhook other-product"]
	if c.Verdict != Warn || strings.Count(c.Detail, "no answer within 500ms") != len(other.Webhooks) {
		t.Errorf("the slow webhooks: %+v", c)
	}
}

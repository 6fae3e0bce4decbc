package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// abuseChildCertDir, set, makes the test binary a webhook server reading nothing (every
// object not found), for TestSlowLargeBodiesStayUnderTheMemoryLimit.
const abuseChildCertDir = "BUTLER_WEBHOOK_ABUSE_CERT_DIR"

// bundleMemoryLimit is the bundle's memory limit (and GOMEMLIMIT under it).
const bundleMemoryLimit = 256 << 20

type emptyReader struct{}

func notFound(name string) error {
	return apierrors.NewNotFound(v1alpha1.GroupVersion.WithResource("x").GroupResource(), name)
}
func (emptyReader) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	return nil, notFound(name)
}
func (emptyReader) ListClusters(context.Context, string) ([]v1alpha1.TenantCluster, error) {
	return nil, nil
}
func (emptyReader) GetProviderConfig(_ context.Context, _, name string) (*v1alpha1.ProviderConfig, error) {
	return nil, notFound(name)
}
func (emptyReader) ListUsers(context.Context) ([]v1alpha1.User, error) { return nil, nil }
func (emptyReader) ListIdentityProviders(context.Context) ([]v1alpha1.IdentityProvider, error) {
	return nil, nil
}
func (emptyReader) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	return nil, nil
}
func (emptyReader) CanUpdateTeams(context.Context, webhook.User) (bool, error) { return false, nil }

// abuseChildKubeconfig, set with abuseChildCertDir, makes the abuse child read through
// the caches of the API server it names (webhook.CachedReader), as the bundle does.
const abuseChildKubeconfig = "BUTLER_WEBHOOK_ABUSE_KUBECONFIG"

func abuseChild() int {
	var reader webhook.Reader = emptyReader{}
	if kc := os.Getenv(abuseChildKubeconfig); kc != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if reader, err = webhook.NewCachedReader(cfg, 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	srv, err := webhook.New(webhook.Options{CertDir: os.Getenv(abuseChildCertDir), Reader: reader})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	fmt.Println(ln.Addr().String())
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// peakRSS is a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// startAbuseChild starts this test binary again as the webhook server the bundle runs
// (GOMEMLIMIT as its memory limit sets it), with env added to its environment; it returns
// the server's base URL, a client of its own connection for each call, and its pid.
func startAbuseChild(t *testing.T, env ...string) (base string, client func() *http.Client, pid int) {
	t.Helper()
	certDir, caBundle := servingCert(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), abuseChildCertDir+"="+certDir, "GOMEMLIMIT=200MiB"), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caBundle)
	client = func() *http.Client {
		return &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool},
			TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1: a connection each
		}}
	}
	return "https://" + strings.TrimSpace(addr), client, cmd.Process.Pid
}

// TestSlowLargeBodiesStayUnderTheMemoryLimit: the server as the bundle runs it (GOMEMLIMIT)
// gets 40 senders at once, each sending 8 MiB bodies slowly, again and again, over
// connections of their own, half announcing their length and half chunked. Its peak
// memory stays under the bundle's limit and its health check answers throughout.
func TestSlowLargeBodiesStayUnderTheMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("sends about a gigabyte")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies the memory measured")
	}
	base, client, pid := startAbuseChild(t)
	const senders, bodySize, chunk = 40, 8 << 20, 512 << 10
	until := time.Now().Add(6 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := 0; i < senders; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client()
			for time.Now().Before(until) {
				pr, pw := io.Pipe()
				go func() {
					block := make([]byte, chunk)
					for sent := 0; sent < bodySize; sent += chunk {
						if _, err := pw.Write(block); err != nil {
							return
						}
						time.Sleep(50 * time.Millisecond)
					}
					_ = pw.Close()
				}()
				req, _ := http.NewRequest(http.MethodPost, base+webhook.PathTenantCluster+"?timeout=10s", pr)
				req.Header.Set("Content-Type", "application/json")
				if i%2 == 0 {
					req.ContentLength = bodySize
				}
				resp, err := c.Do(req)
				_ = pr.CloseWithError(io.ErrClosedPipe)
				code := 0
				if err == nil {
					code = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		}()
	}
	health := client()
	health.Timeout = time.Second
	checks := 0
	for time.Now().Before(until) {
		resp, err := health.Get(base + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("health check under load: %v", err)
		} else {
			resp.Body.Close()
			checks++
		}
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	peak := peakRSS(t, pid)
	t.Logf("answers by HTTP status (0: connection cut) %v; %d health checks; peak memory %d MiB", codes, checks, peak>>20)
	if peak >= bundleMemoryLimit {
		t.Errorf("peak memory %d MiB, over the bundle's %d MiB", peak>>20, bundleMemoryLimit>>20)
	}
	if codes[http.StatusServiceUnavailable] == 0 {
		t.Error("no sender was refused for want of room")
	}
}

// review is an AdmissionReview of a TenantCluster create by carol, as the API server
// sends it (or anyone who can reach the webhook).
func review(t *testing.T, c *v1alpha1.TenantCluster) []byte {
	t.Helper()
	obj, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("review-" + c.Namespace + "-" + c.Name),
			Kind:      metav1.GroupVersionKind{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Kind: v1alpha1.KindTenantCluster},
			Operation: admissionv1.Create,
			Namespace: c.Namespace, Name: c.Name,
			UserInfo: authenticationv1.UserInfo{Username: "carol@example.com"},
			Object:   runtime.RawExtension{Raw: obj},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends a review and returns the HTTP status and whether the review was admitted.
func post(c *http.Client, url string, body []byte) (int, bool, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, false, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil {
		return resp.StatusCode, false, fmt.Errorf("no review in the answer: %v", err)
	}
	return resp.StatusCode, out.Response.Allowed, nil
}

// TestIdleAnnouncersStopNoReview: connections that announce 8 MiB bodies, send one byte
// and ask for ten minutes, opened before and while clients send real reviews at once to
// the server as the bundle runs it: every review is answered (HTTP 200), none refused for
// want of room.
func TestIdleAnnouncersStopNoReview(t *testing.T) {
	base, client, _ := startAbuseChild(t)
	const idle, clients, each = 6, 8, 5
	tlsConfig := client().Transport.(*http.Transport).TLSClientConfig
	announce := func() {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), tlsConfig)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		fmt.Fprintf(conn, "POST %s?timeout=600s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", webhook.PathTenantCluster, 8<<20)
	}
	for i := 0; i < idle/2; i++ {
		announce()
	}
	body := review(t, teamCluster("idle", "x", "dev", "carol@example.com", 1))
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client()
			for k := 0; k < each; k++ {
				code, _, err := post(c, base+webhook.PathTenantCluster+"?timeout=10s", body)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		}()
	}
	for i := idle / 2; i < idle; i++ {
		announce()
	}
	wg.Wait()
	if codes[http.StatusOK] != clients*each {
		t.Errorf("%d reviews beside %d idle connections, answered by HTTP status: %v; want every one 200", clients*each, idle, codes)
	}
}

// TestForgedReviewsStayUnderTheMemoryLimit: the server as the bundle runs it, reading the
// control plane through its caches, gets admitted creates sent straight to it by clients
// at once, each in a namespace of its own with owner and creator annotations of 3 MiB: the
// ledger keeps their figures, not their annotations, and the peak memory stays under the
// bundle's limit.
func TestForgedReviewsStayUnderTheMemoryLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies the memory measured")
	}
	env := testenv.Start(t)
	base, client, pid := startAbuseChild(t, abuseChildKubeconfig+"="+env.Kubeconfig("admin"))
	health := client()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := health.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(end) {
			t.Fatalf("the webhook's caches never synced: %v", err)
		}
	}
	const clients, each = 4, 10
	big := strings.Repeat("c", 3<<20)
	var mu sync.Mutex
	admitted := 0
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client()
			for k := 0; k < each; k++ {
				tc := teamCluster(fmt.Sprintf("forged-%d-%d", i, k), "x", "dev", "", 1)
				tc.Spec.TeamRef, tc.Spec.ProviderConfigRef = nil, nil
				tc.Annotations[v1alpha1.AnnotationOwner] = big + "o"
				tc.Annotations[v1alpha1.AnnotationCreatorEmail] = big + "c"
				// Retried while the body budget is taken by the other clients' bodies.
				for try := 0; try < 50; try++ {
					code, allowed, err := post(c, base+webhook.PathTenantCluster+"?timeout=10s", review(t, tc))
					if err != nil {
						t.Error(err)
						return
					}
					if code == http.StatusServiceUnavailable {
						time.Sleep(100 * time.Millisecond)
						continue
					}
					if code != http.StatusOK || !allowed {
						t.Errorf("forged create: HTTP %d, allowed %v; want it admitted", code, allowed)
						return
					}
					mu.Lock()
					admitted++
					mu.Unlock()
					break
				}
			}
		}()
	}
	wg.Wait()
	peak := peakRSS(t, pid)
	t.Logf("%d forged creates admitted; peak memory %d MiB", admitted, peak>>20)
	if admitted != clients*each {
		t.Fatalf("%d of %d forged creates admitted", admitted, clients*each)
	}
	if peak >= bundleMemoryLimit {
		t.Errorf("peak memory %d MiB, over the bundle's %d MiB", peak>>20, bundleMemoryLimit>>20)
	}
}

package webhook_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
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

	apierrors "k8s.io/apimachinery/pkg/api/errors"

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

func abuseChild() int {
	srv, err := webhook.New(webhook.Options{CertDir: os.Getenv(abuseChildCertDir), Reader: emptyReader{}})
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
	certDir, caBundle := servingCert(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), abuseChildCertDir+"="+certDir, "GOMEMLIMIT=200MiB")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + strings.TrimSpace(addr)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caBundle)
	client := func() *http.Client {
		return &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool},
			TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1: a connection each
		}}
	}

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
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("answers by HTTP status (0: connection cut) %v; %d health checks; peak memory %d MiB", codes, checks, peak>>20)
	if peak >= bundleMemoryLimit {
		t.Errorf("peak memory %d MiB, over the bundle's %d MiB", peak>>20, bundleMemoryLimit>>20)
	}
	if codes[http.StatusServiceUnavailable] == 0 {
		t.Error("no sender was refused for want of room")
	}
}

package webhook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// silentAPIServer accepts connections and never answers, as an API server that hangs.
func silentAPIServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// TestSilentAPIServerRefusedBeforeTheDeadline: when the Team read gets no answer, the
// review is refused with its reason before the API server's own timeout, so the caller
// reads why instead of "context deadline exceeded".
func TestSilentAPIServerRefusedBeforeTheDeadline(t *testing.T) {
	reader, err := NewReader(&rest.Config{Host: "https://" + silentAPIServer(t), TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := reviewBody(t, admissionv1.Create, v1alpha1.KindTenantCluster, tc("x", "", "", 1), nil, "bob@example.com")
	const timeout = 2 * time.Second
	caller := &http.Client{Timeout: timeout} // the API server gives up then
	start := time.Now()
	resp, err := caller.Post(srv.URL+PathTenantCluster+"?timeout=2s", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("no answer before the caller's deadline: %v", err)
	}
	defer resp.Body.Close()
	took := time.Since(start)
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil {
		t.Fatalf("no review in the answer: %v", err)
	}
	r := out.Response
	if r.Allowed || r.Result.Code != http.StatusInternalServerError ||
		!strings.HasPrefix(r.Result.Message, `webhook vtenantcluster.kb.io could not decide within the API server's timeout (2s): fetch team "payments": `) {
		t.Errorf("answer: allowed %v, %d %q", r.Allowed, r.Result.Code, r.Result.Message)
	}
	if took >= timeout || took < timeout/2 {
		t.Errorf("answered after %s; want before the %s deadline, having waited for the read", took, timeout)
	}
}

// TestSlowSenderCutOff: a body that does not arrive in time to be answered is cut off
// (408) at the review's deadline, not held for the server's whole read timeout.
func TestSlowSenderCutOff(t *testing.T) {
	h, err := NewHandler(&fakeReader{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST %s?timeout=1s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"apiVersion\":", PathTenantCluster)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	// Cut at the review's deadline (0.7 s), not the server's 30 s read timeout; the slack
	// is for a loaded machine.
	if took := time.Since(start); resp.StatusCode != http.StatusRequestTimeout || took > 3*time.Second {
		t.Errorf("stalled body: HTTP %d after %s, want 408 at the 1s review's deadline", resp.StatusCode, took)
	}
}

// TestBodiesBoundedAcrossConnections: large bodies sent over many connections, each
// stalled one byte short of its end, hold no more than bodyBudget between them; the others
// are refused as their bytes arrive (503 with Retry-After), and the health check keeps
// answering.
func TestBodiesBoundedAcrossConnections(t *testing.T) {
	h, err := NewHandler(&fakeReader{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{handler: h, log: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(s)
	defer srv.Close()
	const each, senders = 6 << 20, 12
	fits := bodyBudget / each
	answers := make(chan int, senders)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < senders; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, pw := io.Pipe()
			go func() { // all but the last byte now, that one never (until the test ends)
				_, _ = pw.Write(bytes.Repeat([]byte(" "), each-1))
				<-stop
				_ = pw.CloseWithError(io.ErrUnexpectedEOF)
			}()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+PathTenantCluster+"?timeout=30s", pr)
			req.ContentLength = each
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			answers <- resp.StatusCode
		}()
	}
	refused := 0
	deadline := time.After(20 * time.Second)
	for refused < senders-fits {
		select {
		case code := <-answers:
			if code != http.StatusServiceUnavailable {
				t.Fatalf("a sender got HTTP %d: want 503", code)
			}
			refused++
		case <-deadline:
			t.Fatalf("%d of %d senders refused; want all but the %d whose bodies fit", refused, senders, fits)
		}
		if held := h.bodies.Load(); held > bodyBudget {
			t.Fatalf("%d bytes of bodies held, over the %d budget", held, bodyBudget)
		}
	}
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health check while the budget is taken: %v %v", resp, err)
	}
	resp.Body.Close()
	close(stop)
	wg.Wait()
	for end := time.Now().Add(3 * time.Second); h.bodies.Load() != 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if held := h.bodies.Load(); held != 0 {
		t.Errorf("%d bytes still held after every sender ended", held)
	}
}

// idleAnnouncer opens a connection that announces a body of size, sends its first byte,
// asks for ?timeout=600s and sends nothing more; the connection is closed when the test
// ends.
func idleAnnouncer(t *testing.T, addr string, size int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	fmt.Fprintf(conn, "POST %s?timeout=600s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", PathTenantCluster, size)
}

// TestIdleAnnouncersHoldNoBudget: connections that announce the largest body, send one
// byte and ask for ten minutes hold next to nothing of bodyBudget, so a review sent
// meanwhile is answered, not refused for want of room.
func TestIdleAnnouncersHoldNoBudget(t *testing.T) {
	h, err := NewHandler(&fakeReader{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the idle connections are closed (cleanups run last first)
	const idle = 3       // 3 × maxBodyBytes announced: the whole budget, were announcements charged
	for i := 0; i < idle; i++ {
		idleAnnouncer(t, srv.Listener.Addr().String(), maxBodyBytes)
	}
	for end := time.Now().Add(10 * time.Second); h.inflight.Load() < idle; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d of the %d idle connections reached the handler", h.inflight.Load(), idle)
		}
	}
	if held := h.bodies.Load(); held > idle*firstRead {
		t.Errorf("%d idle connections hold %d bytes of the budget, want at most %d", idle, held, idle*firstRead)
	}
	body := reviewBody(t, admissionv1.Create, v1alpha1.KindTenantCluster, tc("x", "", "", 1), nil, "bob@example.com")
	resp, err := http.Post(srv.URL+PathTenantCluster+"?timeout=10s", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.Response == nil {
		t.Fatalf("a review beside %d idle connections: HTTP %d, want a review answered", idle, resp.StatusCode)
	}
}

// TestRequestedTimeoutCapped: a client asking for more time than the API server ever
// gives (?timeout=600s) has its stalled body cut off at maxTimeout all the same.
func TestRequestedTimeoutCapped(t *testing.T) {
	defer func(d time.Duration) { maxTimeout = d }(maxTimeout)
	maxTimeout = time.Second // as 30 s, but quicker to wait for
	h, err := NewHandler(&fakeReader{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s?timeout=600s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", PathTenantCluster)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a stalled body asking for 600s was not cut off at the %s cap: %v", maxTimeout, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("stalled body asking for 600s: HTTP %d, want 408", resp.StatusCode)
	}
}

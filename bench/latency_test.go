package bench

import (
	"net"
	"sync"
	"testing"
	"time"
)

// latencyProxy forwards TCP connections to upstream, delivering every chunk read in either
// direction oneWay later than it arrived, in order: a client talking through it sees the
// server a round trip of 2×oneWay away, as a CLI user sees a management cluster in the same
// region, while requests in flight still overlap (a chunk waits for its own due time, not
// for the chunks before it to be answered). TLS passes through untouched.
type latencyProxy struct {
	ln       net.Listener
	upstream string
	oneWay   time.Duration

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open client connections, closed at the end
}

func startLatencyProxy(t *testing.T, upstream string, oneWay time.Duration) *latencyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &latencyProxy{ln: ln, upstream: upstream, oneWay: oneWay, conns: map[net.Conn]struct{}{}}
	go p.serve()
	// Clients keep idle connections open: close them rather than wait for them.
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for c := range p.conns {
			c.Close()
		}
	})
	return p
}

// Addr is host:port to connect to instead of upstream.
func (p *latencyProxy) Addr() string { return p.ln.Addr().String() }

func (p *latencyProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		go p.handle(c)
	}
}

func (p *latencyProxy) handle(client net.Conn) {
	defer func() {
		p.mu.Lock()
		delete(p.conns, client)
		p.mu.Unlock()
		client.Close()
	}()
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer server.Close()
	done := make(chan struct{}, 2)
	go func() { p.pipe(server, client); done <- struct{}{} }()
	go func() { p.pipe(client, server); done <- struct{}{} }()
	<-done // either side closing ends both
}

type chunk struct {
	due  time.Time
	data []byte
}

// pipe copies src to dst, each chunk oneWay after it was read.
func (p *latencyProxy) pipe(dst, src net.Conn) {
	queue := make(chan chunk, 4096)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				queue <- chunk{due: time.Now().Add(p.oneWay), data: buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range queue {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	// Unblock the other direction and the reader above.
	src.Close()
	dst.Close()
	for range queue { // drain
	}
}

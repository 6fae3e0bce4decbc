package webhook

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// Bounds under load and abuse. Whatever clients send, the bodies held at once stay under
// bodyBudget (a review decodes to about three times its body, so with the caches of 30,000
// clusters the process stays well under the bundle's 256 MiB), and no more than
// maxInFlight reviews are read or decided at once. Past either bound a request is refused
// at once (503, Retry-After) rather than queued: with failurePolicy Fail the API server
// refuses the write with that reason, and retries go to a process still answering.
const (
	bodyBudget  = 24 << 20
	maxInFlight = 64
)

// answerMargin is how long before the API server's own deadline (?timeout=) a review is
// answered: a decision that cannot be made in time is refused with its reason while the
// API server is still listening, instead of the caller seeing "context deadline exceeded".
func answerMargin(timeout time.Duration) time.Duration {
	return max(timeout/10, 300*time.Millisecond)
}

// shed refuses a request at once for want of room (maxInFlight, bodyBudget).
func (h *Handler) shed(w http.ResponseWriter, r *http.Request, rt route, msg string) {
	h.log.Warn("shed", "webhook", rt.webhook, "remote", r.RemoteAddr, "reason", msg)
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Connection", "close")
	writeBadRequest(w, &badRequest{http.StatusServiceUnavailable, msg})
}

// errBudget ends a body read that would take the bodies held past bodyBudget.
var errBudget = errors.New("budget")

// bodyReader reads a request body into a buffer whose capacity is taken from the handler's
// bodyBudget before it is allocated, and given back when the review is answered.
type bodyReader struct {
	h    *Handler
	held int64
}

func (b *bodyReader) take(n int64) bool {
	if b.h.bodies.Add(n) > bodyBudget {
		b.h.bodies.Add(-n)
		return false
	}
	b.held += n
	return true
}

func (b *bodyReader) give(n int64) {
	b.h.bodies.Add(-n)
	b.held -= n
}

// firstRead is the buffer a body starts in, whatever length it announces.
const firstRead = 64 << 10

// readAll reads r to its end into a buffer that grows (by doubling) as bytes arrive, never
// past an announced length (size > 0) or maxBodyBytes: what a body holds of bodyBudget is
// what it has sent (at most twice it, or firstRead), not what it announces, so connections
// that announce large bodies and send nothing hold next to nothing. A full buffer is grown
// only when a byte beyond it arrives, so a body that fills it exactly costs no more.
func (b *bodyReader) readAll(r io.Reader, size int64) ([]byte, error) {
	first := int64(firstRead)
	if size > 0 {
		first = min(first, size)
	}
	if !b.take(first) {
		return nil, errBudget
	}
	buf := make([]byte, 0, first)
	for {
		if len(buf) == cap(buf) {
			var probe [1]byte
			n, err := r.Read(probe[:])
			if n == 0 {
				if err == io.EOF {
					return buf, nil
				}
				if err != nil {
					return buf, err
				}
				continue
			}
			limit := int64(maxBodyBytes + 1)
			if size > int64(cap(buf)) {
				limit = size
			}
			grown := max(min(int64(2*cap(buf)), limit), int64(cap(buf))+1)
			if !b.take(grown) {
				return nil, errBudget
			}
			old := int64(cap(buf))
			nb := make([]byte, len(buf), grown)
			copy(nb, buf)
			buf = append(nb, probe[0])
			b.give(old)
			if err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return buf, err
			}
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

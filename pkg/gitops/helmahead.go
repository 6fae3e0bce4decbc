package gitops

import "github.com/butlerdotdev/butler-toolkit/pkg/manifest"

// HelmReleases applied together are started ahead on the render workers (helmpool.go),
// and taken in order where each one is rendered, as if one rendered after another.

// startReleases starts the renders of HelmReleases applied together on the render
// workers, ahead of renderHelmRelease, which takes each one's result when it comes to it:
// what is recorded, and in which order, is as if they had rendered one after another.
func (l *loader) startReleases(calls []releaseCall, siblings []manifest.Object) {
	h := l.helmState()
	if h.started == nil {
		h.started = map[*manifest.Object]*startedRelease{}
	}
	for _, c := range calls {
		if h.started[c.e] != nil {
			continue
		}
		s := &startedRelease{as: c.as, siblings: siblings}
		h.started[c.e] = s
		if s.inst, s.skip, s.err = l.helmReleaseInstall(c.e, c.as); s.err == nil && s.skip.why == "" {
			inst, as := s.inst, c.as
			s.job = l.startRender(inst, func() (notRendered, error) { return l.helmReleaseValues(inst, as, siblings) })
		}
	}
}

// releasesOf are the HelmReleases of the tree an entry e applies (objs, as it renders
// them), to start ahead.
func (l *loader) releasesOf(e *manifest.Object, objs []manifest.Object) []releaseCall {
	var calls []releaseCall
	for i := range objs {
		if o := &objs[i]; isHelmRelease(o) {
			if n := l.rawFor(o); n != nil && n != e {
				if _, done := l.rendered[n]; !done {
					calls = append(calls, releaseCall{n, o})
				}
			}
		}
	}
	return calls
}

// releaseCall is a HelmRelease to render: e where it is written, as what was applied.
type releaseCall struct{ e, as *manifest.Object }

// startedRelease is a HelmRelease started ahead: read, and its render on a worker.
type startedRelease struct {
	as       *manifest.Object
	siblings []manifest.Object
	inst     *install
	skip     notRendered
	err      error
	job      *renderJob
}

// renderHelmRelease renders a HelmRelease: e is where it is written, as is what its
// parent applied (its namespace set), siblings the objects applied with it, where its
// valuesFrom are found. A chart of another source is counted, not rendered.
func (l *loader) renderHelmRelease(e, as *manifest.Object, siblings []manifest.Object, t *Tree) *output {
	if out, ok := l.rendered[e]; ok {
		return out
	}
	out := &output{files: map[string]bool{}}
	l.rendered[e] = out
	s := l.helmState().started[e]
	if s == nil || s.as != as || !sameObjects(s.siblings, siblings) {
		if s != nil && s.job != nil {
			l.helm.pool.wait(s.job) // started ahead otherwise: taken, so that its place in the window is given back
		}
		delete(l.helm.started, e) // not started ahead, or otherwise: start it now
		l.startReleases([]releaseCall{{e, as}}, siblings)
		s = l.helm.started[e]
	}
	delete(l.helm.started, e)
	var objs []manifest.Object
	if s.job != nil {
		objs, s.skip, s.err = l.helm.pool.wait(s.job)
	}
	switch {
	case s.err != nil:
		out.errs = append(out.errs, s.err)
	case s.skip.why != "":
		l.releaseNotRendered(e, s.skip, t)
	default:
		l.installed(s.inst, objs, out, t)
	}
	return out
}

// sameObjects reports whether two slices are the same slice (not equal ones).
func sameObjects(a, b []manifest.Object) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

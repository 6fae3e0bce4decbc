package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Bounds of the steps after COMMAND; variables so tests can shorten them.
var (
	// CleanupTimeout bounds the cleanup (delete, or extend and freeze).
	CleanupTimeout = 2 * time.Minute
	// KillAfter is how long COMMAND has to exit after an interrupt before it is killed:
	// short enough that the cleanup still runs inside a CI runner's own grace period
	// (GitHub Actions kills the job 10 s after its first SIGINT).
	KillAfter = 5 * time.Second
	// SecretWait is how long the admin kubeconfig may take to appear once the cluster is Ready.
	SecretWait = 30 * time.Second
)

// Interrupts are the signals that interrupt a run, each as a cancelled CI job does: SIGINT
// and SIGTERM, and SIGHUP (a closed terminal, a dropped ssh session) and SIGQUIT (Ctrl-\),
// whose default would end the process and leave the cluster, its kubeconfig file and
// COMMAND behind.
var Interrupts = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

func notify() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, len(Interrupts))
	signal.Notify(ch, Interrupts...)
	// Caught, SIGPIPE no longer ends the process at a write to a stdout or stderr whose
	// reader is gone (a dropped ssh session without a terminal): the write fails and the
	// cleanup still runs. COMMAND starts with the default again (exec resets a caught signal).
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return ch, func() { signal.Stop(ch); signal.Stop(pipe) }
}

// preflight is every check before anything is created: the role, the admission rules as
// the server applies them, the name, freeze's team admin, and live the server's own dry
// run (RBAC, webhooks, schema). A refusal exits 4 with the server's message.
func preflight(ctx context.Context, o *Options, s Store) (*shared.Plan, error) {
	p, err := shared.NewPlan(ctx, s, o.IO.ErrOut, o.Now(), o.Name, &o.CreateSpec)
	if err != nil {
		return nil, err
	}
	if !p.Role.Role.CanOperate() {
		return nil, cmdutil.DeniedError(fmt.Errorf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
			p.Actor.Identity.Username, shared.Where(p.Team.Name, o.Environment), p.Role.Role, p.Role.Reason))
	}
	if !p.Decision.Allowed() {
		return nil, cmdutil.DeniedError(p.Decision.Err())
	}
	if shared.Exists(p.Siblings, p.Cluster.Name) {
		return nil, apierrors.NewAlreadyExists(v1alpha1.Resource("tenantclusters"), p.Cluster.Name)
	}
	if o.OnFailure == OnFailureFreeze {
		if err := shared.Authorize(p.Team, p.Actor, "freeze", p.Cluster.Name); err != nil {
			return nil, err
		}
	}
	if cs, err := s.Server(); err == nil {
		if _, _, err := cs.DryRunCreateCluster(ctx, p.Cluster, p.Addons); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// runner is one run: the cluster, COMMAND, and the interrupts that arrive meanwhile.
type runner struct {
	o    *Options
	s    Store
	plan *shared.Plan
	sig  <-chan os.Signal
	// id is the run's AnnotationRun value on the cluster it creates.
	id string

	mu      sync.Mutex
	got     os.Signal // the first interrupt
	child   *group    // COMMAND's processes, while it runs
	abandon chan struct{}
}

func (r *runner) do(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.abandon = make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go r.interrupts(cancel, done)

	c := r.plan.Cluster
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[AnnotationRun] = r.id
	if _, err := r.s.CreateCluster(ctx, c, r.plan.Addons); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			r.undoCreate(c)
		}
		return r.outcome(0, err, nil)
	}
	exp, _, _ := clusterttl.Expiry(c)
	r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s created (expires %s)", c.Name, clusterttl.Format(exp))
	status, runErr := r.readyAndRun(ctx, c)
	failed := status != 0 || runErr != nil || r.interrupted() != nil
	return r.outcome(status, runErr, r.cleanup(c, failed))
}

// outcome is the run's exit: an interrupt's, else why the run failed, else COMMAND's
// status, else the cleanup's error. A cleanup error that is not the exit is still said.
func (r *runner) outcome(status int, runErr, cleanErr error) error {
	var exit error
	switch s := r.interrupted(); {
	case s != nil:
		exit = &cmdutil.SilentError{Code: 128 + int(s.(syscall.Signal))}
	case runErr != nil:
		exit = runErr
	case status != 0:
		exit = &cmdutil.SilentError{Code: status}
	default:
		return cleanErr
	}
	if cleanErr != nil {
		r.o.errorf("Error: %v", cleanErr)
	}
	return exit
}

// undoCreate deletes what a create that failed may have stored (the cluster before a
// refused addon, or a request cut by an interrupt), so a failed run leaves nothing behind.
// Only this run's cluster: the one carrying this run's AnnotationRun, deleted with the uid
// read as precondition. A cluster of the same name and expiry another run created (and
// this create was refused for) is left alone.
func (r *runner) undoCreate(c *v1alpha1.TenantCluster) {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	cur, err := r.s.GetCluster(ctx, c.Namespace, c.Name)
	if apierrors.IsNotFound(err) || err == nil && !r.ours(cur) {
		return
	}
	if err == nil {
		_, err = r.s.DeleteCluster(ctx, cur)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		r.o.errorf("Warning: the create failed and TenantCluster %s/%s may be left: %v; it expires %s", c.Namespace, c.Name, err, c.Annotations[clusterttl.Annotation])
		return
	}
	r.o.errorf("tenantcluster.butler.butlerlabs.dev/%s deleted (the create failed)", c.Name)
}

// readyAndRun waits for the cluster, writes its kubeconfig and runs COMMAND: its exit
// status, or an error when it did not get to run.
func (r *runner) readyAndRun(ctx context.Context, c *v1alpha1.TenantCluster) (int, error) {
	cs, err := r.s.Server()
	if err != nil {
		return 0, err
	}
	if err := shared.WaitReady(ctx, r.o.IO, r.o.Now, r.s, c, r.o.Timeout, false); err != nil {
		return 0, err
	}
	got, err := r.s.GetCluster(ctx, c.Namespace, c.Name)
	if err != nil {
		return 0, err
	}
	value, err := adminKubeconfig(ctx, cs, got)
	if err != nil {
		return 0, err
	}
	path, err := writePrivate(value)
	if err != nil {
		return 0, err
	}
	defer os.Remove(path)
	return r.exec(ctx, c, path)
}

// interrupts: the first cancels the run and goes to COMMAND; the same signal again
// abandons the cleanup. Another signal goes to COMMAND only: a CI runner's cancel sends
// SIGINT then SIGTERM, and the cleanup must still run.
func (r *runner) interrupts(cancel context.CancelFunc, done <-chan struct{}) {
	var first os.Signal
	select {
	case first = <-r.sig:
		r.mu.Lock()
		r.got = first
		child := r.child
		r.mu.Unlock()
		r.o.errorf("Interrupted (%s): cleaning up; interrupt again to leave the cluster to its TTL", first)
		cancel()
		if child != nil {
			child.signal(first)
		}
	case <-done:
		return
	}
	for {
		select {
		case s := <-r.sig:
			if s == first {
				close(r.abandon)
				return
			}
			r.mu.Lock()
			if r.child != nil {
				r.child.signal(s)
			}
			r.mu.Unlock()
		case <-done:
			return
		}
	}
}

// ours reports whether c is the cluster this run created.
func (r *runner) ours(c *v1alpha1.TenantCluster) bool {
	return r.id != "" && c.Annotations[AnnotationRun] == r.id
}

func (r *runner) interrupted() os.Signal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

// exec runs COMMAND with the kubeconfig and the cluster's name in its environment, its
// output passed through, in a process group of its own: an interrupt goes to the group,
// which is killed KillAfter later, and what COMMAND leaves running when it exits is
// killed then, so nothing it started outlives the run (or holds its stdout open).
func (r *runner) exec(ctx context.Context, c *v1alpha1.TenantCluster, kubeconfig string) (int, error) {
	cmd := exec.Command(r.o.Command[0], r.o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.o.IO.In, r.o.IO.Out, r.o.IO.ErrOut
	// Output copying ends KillAfter after COMMAND, even when a process it left holds the pipes.
	cmd.WaitDelay = KillAfter
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "BUTLER_CLUSTER_NAME="+c.Name, "BUTLER_CLUSTER_NAMESPACE="+c.Namespace)
	r.mu.Lock()
	if r.got != nil {
		r.mu.Unlock()
		return 0, ctx.Err()
	}
	g, err := inGroup(cmd, r.o.IO.In)
	if err == nil {
		r.child = g
	}
	r.mu.Unlock()
	if err != nil {
		r.o.errorf("Error: cannot run %s: %v", r.o.Command[0], err)
		return 127, nil
	}
	waited := make(chan error, 1)
	go func() {
		// The group ends as COMMAND exits, before Wait reaps it, where that can be told.
		exited := awaitExit(g.p.Pid)
		if exited {
			g.ended()
		}
		err := cmd.Wait()
		if !exited {
			g.ended()
		}
		waited <- err
	}()
	select {
	case err = <-waited:
	case <-ctx.Done():
		select {
		case err = <-waited:
		case <-time.After(KillAfter):
			g.kill()
			err = <-waited
		}
	}
	r.mu.Lock()
	r.child = nil
	r.mu.Unlock()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return code, nil
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil // as a shell reports it
		}
		return 1, nil
	}
	return 0, err
}

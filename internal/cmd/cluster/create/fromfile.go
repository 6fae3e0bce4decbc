package create

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply/applyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file is cluster create -f FILE: the TenantCluster of a file, read, judged and sent
// by apply's path (applyutil) as a create: one that exists is AlreadyExists, as for NAME.

// fieldManager is the field manager of a create from a file: apply's, so that a later
// `butlerctl apply -f` of the same file owns the same fields.
const fieldManager = "butlerctl"

// checkFile refuses what does not go with -f: a NAME and the flags that describe the
// cluster (the file does), and --explain.
func (o *Options) checkFile(cmd *cobra.Command) error {
	if o.Name != "" {
		return cmdutil.UsageError("-f and NAME are alternatives: the file names the cluster")
	}
	var set []string
	for _, name := range []string{"team", "environment", "provider", "workers", "cpu", "memory", "disk", "kubernetes-version",
		"addon", "ttl", "generate-name", "label", "image", "network", "nutanix-cluster", "storage-container", "explain"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			set = append(set, "--"+name)
		}
	}
	if len(set) > 0 {
		return cmdutil.UsageError("-f takes the cluster as the file describes it: %v do not go with it", set)
	}
	if o.Wait && o.DryRun != "none" {
		return cmdutil.UsageError("--wait waits for a created cluster: it does not go with --dry-run")
	}
	return o.checkMode()
}

// fromFile reads the file's one TenantCluster, judges it as a create, and prints it (on
// manifests without --write, and with --dry-run) or creates it as apply does.
func fromFile(ctx context.Context, o *Options, s Store) error {
	objs, err := applyutil.Read(applyutil.ReadOptions{Files: []string{o.File}, Namespace: o.Namespace}, applyutil.Developer, o.IO.In)
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return cmdutil.UsageError("-f %s: cluster create takes one TenantCluster; the file has %d (butlerctl apply -f takes many)", o.File, len(objs))
	}
	judged, err := applyutil.Judge(ctx, s, o.IO.ErrOut, objs)
	if err != nil {
		return err
	}
	jd := &judged[0]
	applyutil.Warn(o.IO.ErrOut, judged)
	if err := applyutil.Refused(judged); err != nil {
		return err
	}
	if !jd.Create() {
		return apierrors.NewAlreadyExists(v1alpha1.Resource("tenantclusters"), jd.Cluster.Name)
	}
	live := s.Kind() == store.Live
	if (!live && !o.Write) || o.DryRun == "client" {
		return o.Printer.Print(output.Doc{One: true, Items: []output.Item{{Object: jd.Result}},
			Text: func(w io.Writer) error { return printYAMLClean(w, jd.Result) }})
	}
	outs, err := applyutil.Send(ctx, s, judged, applyutil.Mode{ApplyOptions: store.ApplyOptions{FieldManager: fieldManager, DryRun: o.DryRun == "server"}})
	if err != nil {
		return err
	}
	if err := applyutil.Failed(outs); err != nil {
		return err
	}
	suffix := ""
	if o.DryRun == "server" {
		suffix = " (server dry run)"
	}
	if err := o.Printer.Print(applyutil.Doc(outs, suffix, !live)); err != nil {
		return err
	}
	if o.Wait {
		return waitReady(ctx, o, s, outs[0].Object)
	}
	return nil
}

package create

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/nextstep"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// planDoc is the rendered objects for the printer. For people, with a verb ("created"),
// one line per object (the cluster's with where it went, when the store names a place);
// without, the objects as YAML documents, ready for kubectl apply.
func planDoc(p *plan, verb, location string) output.Doc {
	objs := objects(p)
	d := output.Doc{One: len(objs) == 1}
	for _, obj := range objs {
		d.Items = append(d.Items, output.Item{Object: obj})
	}
	d.Text = func(w io.Writer) error {
		for i, obj := range objs {
			var err error
			switch {
			case verb != "":
				line := fmt.Sprintf("%s %s", resourceName(obj), verb)
				if i == 0 && location != "" {
					line += " (" + location + ")"
				}
				_, err = fmt.Fprintln(w, line)
			default:
				if i > 0 {
					fmt.Fprintln(w, "---")
				}
				err = printYAMLClean(w, obj)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return d
}

// resourceName is kind.group/name, as -o name prints it.
func resourceName(obj runtime.Object) string {
	if a, ok := obj.(*v1alpha1.TenantAddon); ok {
		return "tenantaddon.butler.butlerlabs.dev/" + a.Name
	}
	return "tenantcluster.butler.butlerlabs.dev/" + obj.(*v1alpha1.TenantCluster).Name
}

// deny reports a preflight denial: the server's aggregate message on stderr (exit 4), its
// next step for people (hint), and for programs the violations, unless --explain already
// printed them among its checks: one document on stdout.
func deny(o *Options, p *plan) error {
	if !(o.Explain && o.Print.Structured()) {
		if err := o.Printer.Print(clusterview.DenialDoc(p.Decision)); err != nil {
			return err
		}
	}
	r := nextstep.Refusal{Verb: "create", Team: p.Team, Env: o.Environment, User: p.Actor.Identity.Username,
		Clusters: p.Siblings, Decision: p.Decision, More: o.cmdLine + " --explain"}
	if o.Explain {
		r.More = "" // the checks are on the screen already
	}
	return o.hinted(cmdutil.DeniedError(p.Decision.Err()), r.Lines())
}

func printYAMLClean(w io.Writer, obj any) error {
	m, err := output.Clean(obj)
	if err != nil {
		return err
	}
	return output.PrintYAML(w, m)
}

func objects(p *plan) []runtime.Object {
	objs := []runtime.Object{p.Cluster}
	for i := range p.Addons {
		objs = append(objs, &p.Addons[i])
	}
	return objs
}

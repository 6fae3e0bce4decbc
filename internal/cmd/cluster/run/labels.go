package run

import (
	"crypto/rand"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels naming a CI run, so a pipeline finds (and deletes) what a run left.
const (
	LabelRun         = "butler.butlerlabs.dev/ci-run"
	LabelRepository  = "butler.butlerlabs.dev/ci-repository"
	LabelPullRequest = "butler.butlerlabs.dev/ci-pull-request"
)

// AnnotationRun marks the cluster a run created with a value of that run alone, so the run
// deletes, keeps or freezes only its own: never a cluster of the same name another run
// created (whose create this run's may have been refused for) or created again since.
const AnnotationRun = "butler.butlerlabs.dev/run-id"

// newRunID is a value no other run has: 128 random bits.
func newRunID() string { return rand.Text() }

var githubPR = regexp.MustCompile(`^refs/pull/(\d+)/`)

// ciLabels are the labels of the CI run the command runs in: GitHub Actions or GitLab CI,
// from their documented variables. A value that cannot be a label value is made one
// ("/" becomes "."), or left out.
func ciLabels(getenv func(string) string) map[string]string {
	out := map[string]string{}
	set := func(k, v string) {
		v = labelValue(v)
		if v != "" {
			out[k] = v
		}
	}
	switch {
	case getenv("GITHUB_RUN_ID") != "":
		set(LabelRun, getenv("GITHUB_RUN_ID"))
		set(LabelRepository, getenv("GITHUB_REPOSITORY"))
		if m := githubPR.FindStringSubmatch(getenv("GITHUB_REF")); m != nil {
			set(LabelPullRequest, m[1])
		}
	case getenv("CI_PIPELINE_ID") != "":
		set(LabelRun, getenv("CI_PIPELINE_ID"))
		set(LabelRepository, getenv("CI_PROJECT_PATH"))
		set(LabelPullRequest, getenv("CI_MERGE_REQUEST_IID"))
	}
	return out
}

func labelValue(v string) string {
	v = strings.ReplaceAll(v, "/", ".")
	if len(validation.IsValidLabelValue(v)) > 0 {
		return ""
	}
	return v
}

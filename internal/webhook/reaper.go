package webhook

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// The optional reaper of a bundle (Bundle.ReapSchedule): a CronJob running `butleradm
// cluster reap -A` under an identity of its own, with only the rights reaping needs, so
// the webhook's identity gains none.

func (b Bundle) reaperName() string { return b.name() + "-reaper" }

// reaper is the reaper's objects, in the order they can be applied.
func (b Bundle) reaper() []runtime.Object {
	name := b.reaperName()
	return []runtime.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: b.meta(name),
		},
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels()},
			Rules: []rbacv1.PolicyRule{
				// List the clusters, read each expired one again just before acting (its owner
				// may have extended it since the listing), and delete it (a server dry run
				// first, so a refused delete leaves a frozen cluster frozen).
				{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"tenantclusters"}, Verbs: []string{"get", "list", "delete"}},
				// Thaw a frozen cluster's control plane before its delete (and freeze it again
				// when the delete is refused).
				{APIGroups: []string{"steward.butlerlabs.dev"}, Resources: []string{"tenantcontrolplanes"}, Verbs: []string{"get", "patch"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels()},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: b.Namespace}},
		},
		b.cronJob(),
	}
}

func (b Bundle) cronJob() *batchv1.CronJob {
	pod := corev1.PodSpec{
		ServiceAccountName: b.reaperName(),
		RestartPolicy:      corev1.RestartPolicyOnFailure,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr(true),
			RunAsUser:      ptr(int64(nonRootUID)),
			RunAsGroup:     ptr(int64(nonRootUID)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:  "reap",
			Image: b.Image,
			Args:  []string{"cluster", "reap", "-A"},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
			},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false),
				ReadOnlyRootFilesystem:   ptr(true),
				RunAsNonRoot:             ptr(true),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
	}
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: b.meta(b.reaperName()),
		Spec: batchv1.CronJobSpec{
			Schedule: b.ReapSchedule,
			// Reaping is idempotent, but one at a time is enough.
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: ptr(int32(1)),
			FailedJobsHistoryLimit:     ptr(int32(3)),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
				BackoffLimit:            ptr(int32(2)),
				ActiveDeadlineSeconds:   ptr(int64(600)),
				TTLSecondsAfterFinished: ptr(int32(86400)),
				Template:                corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels()}, Spec: pod},
			}},
		},
	}
}

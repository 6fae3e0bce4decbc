package webhook_test

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func i32(n int32) *int32 { return &n }

// cluster is a TenantCluster as butlerctl cluster create renders it (disk: the built-in).
func cluster(name, env, creator string, replicas, cpu int32, memory string, version ...string) *v1alpha1.TenantCluster {
	c := &v1alpha1.TenantCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantCluster},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments",
			Labels: map[string]string{v1alpha1.LabelTeam: "payments"}, Annotations: map[string]string{}},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod", Namespace: "butler-system"},
		},
	}
	if len(version) > 0 {
		c.Spec.KubernetesVersion = version[0]
	}
	if env != "" {
		c.Labels[v1alpha1.LabelEnvironment] = env
	}
	if creator != "" {
		c.Annotations[v1alpha1.AnnotationCreatorEmail] = creator
	}
	c.Spec.Workers.Replicas = replicas
	c.Spec.Workers.MachineTemplate.CPU = cpu
	c.Spec.Workers.MachineTemplate.Memory = resource.MustParse(memory)
	c.Spec.Workers.MachineTemplate.DiskSize = resource.MustParse("100Gi")
	return c
}

package testenv

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Cluster is a TenantCluster of the example's team payments as butlerctl cluster create
// renders it (ProviderConfig butler-system/harvester-prod, disk the built-in 100Gi,
// Kubernetes v1.31.0 unless version says otherwise), for the tests of the webhook and of
// its parity with the tools. env and creator are left out when "".
func Cluster(name, env, creator string, replicas, cpu int32, memory string, version ...string) *v1alpha1.TenantCluster {
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

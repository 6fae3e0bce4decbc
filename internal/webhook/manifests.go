package webhook

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Defaults of an installation.
const (
	DefaultNamespace = v1alpha1.PlatformNamespace // butler-system
	DefaultService   = "butler-toolkit-webhook"
	// DefaultName names the ValidatingWebhookConfiguration, the ServiceAccount, the
	// ClusterRole and the ClusterRoleBinding.
	DefaultName = "butler-toolkit-webhook"
	// DefaultTimeoutSeconds is each webhook's timeoutSeconds.
	DefaultTimeoutSeconds int32 = 10
)

// Install describes one installation of the server.
type Install struct {
	// Name of the configuration and of the RBAC objects; DefaultName when empty.
	Name string
	// Namespace and Service the API server calls (port 443 of the Service); the
	// ServiceAccount lives in Namespace.
	Namespace, Service string
	// CABundle is the PEM CA that signed the serving certificate; empty leaves it to be
	// filled in (by cert-manager's CA injector, for example).
	CABundle []byte
}

func (in Install) name() string {
	if in.Name == "" {
		return DefaultName
	}
	return in.Name
}

// Manifests is everything an installation needs besides the Service, the Deployment
// running `butleradm webhook serve` and its certificate.
type Manifests struct {
	ServiceAccount     *corev1.ServiceAccount
	ClusterRole        *rbacv1.ClusterRole
	ClusterRoleBinding *rbacv1.ClusterRoleBinding
	Configuration      *admissionregistrationv1.ValidatingWebhookConfiguration
}

// Objects lists them in the order they can be applied.
func (m Manifests) Objects() []any {
	return []any{m.ServiceAccount, m.ClusterRole, m.ClusterRoleBinding, m.Configuration}
}

// Build returns the manifests of an installation.
func Build(in Install) Manifests {
	return Manifests{
		ServiceAccount:     ServiceAccount(in),
		ClusterRole:        ClusterRole(in),
		ClusterRoleBinding: ClusterRoleBinding(in),
		Configuration:      Configuration(in),
	}
}

func labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "butler-toolkit-webhook", "app.kubernetes.io/part-of": "butler"}
}

// ServiceAccount is the server's identity.
func ServiceAccount(in Install) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: in.name(), Namespace: in.Namespace, Labels: labels()},
	}
}

// ClusterRole is what the server reads (get, list and watch: Teams, TenantClusters,
// ProviderConfigs, Users, IdentityProviders, ClusterCreationPolicies, IPAllocations) and the SubjectAccessReviews it creates to ask
// whether a requester may update Teams.
func ClusterRole(in Install) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: in.name(), Labels: labels()},
		Rules: []rbacv1.PolicyRule{
			{
				APIGroups: []string{v1alpha1.GroupVersion.Group},
				Resources: []string{"teams", "tenantclusters", "providerconfigs", "users", "identityproviders", "clustercreationpolicies", "ipallocations"},
				Verbs:     []string{"get", "list", "watch"},
			},
			{
				APIGroups: []string{"authorization.k8s.io"},
				Resources: []string{"subjectaccessreviews"},
				Verbs:     []string{"create"},
			},
		},
	}
}

// ClusterRoleBinding binds ClusterRole to ServiceAccount.
func ClusterRoleBinding(in Install) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: in.name(), Labels: labels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: in.name()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: in.name(), Namespace: in.Namespace}},
	}
}

// Configuration is the ValidatingWebhookConfiguration: the five webhooks under Butler's
// names and paths, failurePolicy Fail, sideEffects None, admission.k8s.io/v1 reviews,
// cluster-wide like Butler's own (ADR12).
func Configuration(in Install) *admissionregistrationv1.ValidatingWebhookConfiguration {
	hook := func(name, path, resource string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.ValidatingWebhook {
		fail := admissionregistrationv1.Fail
		none := admissionregistrationv1.SideEffectClassNone
		equivalent := admissionregistrationv1.Equivalent
		timeout := DefaultTimeoutSeconds
		port := int32(443)
		p := path
		return admissionregistrationv1.ValidatingWebhook{
			Name: name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: in.Namespace, Name: in.Service, Path: &p, Port: &port},
				CABundle: in.CABundle,
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: ops,
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{v1alpha1.GroupVersion.Group},
					APIVersions: []string{v1alpha1.GroupVersion.Version},
					Resources:   []string{resource},
				},
			}},
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: in.name(), Labels: labels()},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook(NameTenantCluster, PathTenantCluster, "tenantclusters", admissionregistrationv1.Create, admissionregistrationv1.Update),
			hook(NameTeam, PathTeam, "teams", admissionregistrationv1.Create, admissionregistrationv1.Update),
			hook(NameProviderConfig, PathProviderConfig, "providerconfigs", admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
			hook(NameCreationPolicy, PathCreationPolicy, "clustercreationpolicies", admissionregistrationv1.Create, admissionregistrationv1.Update),
			hook(NameNetworkPool, PathNetworkPool, "networkpools", admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
		},
	}
}

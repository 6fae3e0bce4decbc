package store

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file holds the types of the applies (ClusterApplier, ObjectApplier): their options
// and answers.

// ApplyOptions are how ApplyClusters applies.
type ApplyOptions struct {
	// FieldManager names the applier to the server (live).
	FieldManager string
	// Force takes over fields another manager owns instead of a Conflict (live).
	Force bool
	// DryRun: the server's dry run live; nothing written offline.
	DryRun bool
	// Concurrency is how many clusters are sent at once live (0: one at a time).
	Concurrency int
	// Done, when set, is called after each cluster is answered (live), from the sending
	// goroutines: for progress on a terminal.
	Done func()
}

// Applied is ApplyClusters' answer for one cluster: the cluster as the store now holds it
// (or, on a dry run, would), where it went (a file offline), or the error that stopped it.
type Applied struct {
	Object   *v1alpha1.TenantCluster
	Location string
	Err      error
}

// Object is a Butler object of any kind, as ObjectApplier takes it.
type Object interface {
	runtime.Object
	metav1.Object
}

// AppliedObject is ApplyObjects' answer for one object, as Applied is for a cluster.
type AppliedObject struct {
	Object   Object
	Location string
	Err      error
}

// ApplyResource is the Butler resource (plural) of an object ApplyObjects takes, and
// whether it is namespaced; "" for a kind it does not take.
func ApplyResource(kind string) (resource string, namespaced bool) {
	switch kind {
	case v1alpha1.KindTeam:
		return "teams", false
	case v1alpha1.KindClusterCreationPolicy:
		return "clustercreationpolicies", false
	case v1alpha1.KindProviderConfig:
		return "providerconfigs", true
	}
	return "", false
}

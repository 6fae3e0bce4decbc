package check

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// liveTimeout bounds all the reads of --context together.
const liveTimeout = 2 * time.Minute

// platform is the live platform of --context or --kubeconfig (gate.Platform): the store is
// opened when the check reads it, within liveTimeout, and closed after.
type platform struct{ f *factory.Factory }

func (p *platform) Objects(ctx context.Context) ([]manifest.Object, error) {
	defer func() { _ = p.f.Close() }()
	ctx, cancel := context.WithTimeout(ctx, liveTimeout)
	defer cancel()
	s, err := p.f.Store(ctx)
	if err != nil {
		return nil, err
	}
	return readLive(ctx, s)
}

// readLive lists, read-only and as the caller (never impersonating the author), what the
// server holds that the judging needs: Teams, ProviderConfigs, ClusterCreationPolicies,
// TenantClusters, and the Users and IdentityProviders when the caller may read them.
func readLive(ctx context.Context, s store.Reader) ([]manifest.Object, error) {
	var out []manifest.Object
	add := func(kind, ns, name string, obj runtime.Object) {
		out = append(out, manifest.Object{Source: manifest.Source{File: check.LiveFile}, APIVersion: v1alpha1.GroupVersion.String(),
			Kind: kind, Namespace: ns, Name: name, Obj: obj})
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Teams: %w", err)
	}
	for i := range teams {
		add("Team", "", teams[i].Name, &teams[i])
	}
	pcs, err := s.ListProviderConfigs(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("listing ProviderConfigs: %w", err)
	}
	for i := range pcs {
		add("ProviderConfig", pcs[i].Namespace, pcs[i].Name, &pcs[i])
	}
	pols, err := s.ListClusterCreationPolicies(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing ClusterCreationPolicies: %w", err)
	}
	for i := range pols {
		add("ClusterCreationPolicy", "", pols[i].Name, &pols[i])
	}
	clusters, err := s.ListClusters(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("listing TenantClusters: %w", err)
	}
	for i := range clusters {
		add("TenantCluster", clusters[i].Namespace, clusters[i].Name, &clusters[i])
	}
	// Who is a platform admin: readable by platform admins; without them the tree's say.
	if users, err := s.ListUsers(ctx); err == nil {
		for i := range users {
			add("User", "", users[i].Name, &users[i])
		}
	} else if !forbidden(err) {
		return nil, fmt.Errorf("listing Users: %w", err)
	}
	if idps, err := s.ListIdentityProviders(ctx); err == nil {
		for i := range idps {
			add("IdentityProvider", "", idps[i].Name, &idps[i])
		}
	} else if !forbidden(err) {
		return nil, fmt.Errorf("listing IdentityProviders: %w", err)
	}
	return out, nil
}

func forbidden(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err)
}

package applyutil

import (
	"context"
	"sort"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// batch is the store as the operator objects judged so far leave it: the shared checks
// read it as they read the store, so an object is judged with the ones before it applied
// (a policy naming a team the batch creates, two policies of one tier that conflict).
type batch struct {
	OperatorStore
	teams    map[string]*v1alpha1.Team
	policies map[string]*v1alpha1.ClusterCreationPolicy
	pcs      map[string]*v1alpha1.ProviderConfig
}

func newBatch(s OperatorStore) *batch {
	return &batch{OperatorStore: s, teams: map[string]*v1alpha1.Team{},
		policies: map[string]*v1alpha1.ClusterCreationPolicy{}, pcs: map[string]*v1alpha1.ProviderConfig{}}
}

// put records an object the preflight let through, as it will be once applied.
func (b *batch) put(o store.Object) {
	switch t := o.(type) {
	case *v1alpha1.Team:
		b.teams[t.Name] = t.DeepCopy()
	case *v1alpha1.ClusterCreationPolicy:
		b.policies[t.Name] = t.DeepCopy()
	case *v1alpha1.ProviderConfig:
		b.pcs[t.Namespace+"/"+t.Name] = t.DeepCopy()
	}
}

func (b *batch) GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error) {
	if t, ok := b.teams[name]; ok {
		return t.DeepCopy(), nil
	}
	return b.OperatorStore.GetTeam(ctx, name)
}

func (b *batch) ListTeams(ctx context.Context) ([]v1alpha1.Team, error) {
	teams, err := b.OperatorStore.ListTeams(ctx)
	if err != nil {
		return nil, err
	}
	return overlay(teams, b.teams, func(t *v1alpha1.Team) string { return t.Name }), nil
}

func (b *batch) GetClusterCreationPolicy(ctx context.Context, name string) (*v1alpha1.ClusterCreationPolicy, error) {
	if p, ok := b.policies[name]; ok {
		return p.DeepCopy(), nil
	}
	return b.OperatorStore.GetClusterCreationPolicy(ctx, name)
}

func (b *batch) ListClusterCreationPolicies(ctx context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	ps, err := b.OperatorStore.ListClusterCreationPolicies(ctx)
	if err != nil {
		return nil, err
	}
	return overlay(ps, b.policies, func(p *v1alpha1.ClusterCreationPolicy) string { return p.Name }), nil
}

func (b *batch) GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	if pc, ok := b.pcs[namespace+"/"+name]; ok {
		return pc.DeepCopy(), nil
	}
	return b.OperatorStore.GetProviderConfig(ctx, namespace, name)
}

// overlay is list with the batch's objects in place of the stored ones of their key and
// the new ones added, sorted by key as the stores list.
func overlay[T any](list []T, batch map[string]*T, key func(*T) string) []T {
	if len(batch) == 0 {
		return list
	}
	out := make([]T, 0, len(list)+len(batch))
	for i := range list {
		if _, ok := batch[key(&list[i])]; !ok {
			out = append(out, list[i])
		}
	}
	for _, v := range batch {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool { return key(&out[i]) < key(&out[j]) })
	return out
}

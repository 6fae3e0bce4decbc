package live

import (
	"context"
	"fmt"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// This file is who is asking, as the API server says: the identity and whether it is a
// platform admin.

// adminAnswer is the platform-admin answer for one identity.
type adminAnswer struct {
	id  policy.Identity
	ok  bool
	why string
}

// Identity asks the API server who the credentials (or the --as impersonation) are, with
// a SelfSubjectReview. A refused impersonation is the server's Forbidden error.
func (s *Store) Identity(ctx context.Context) (policy.Identity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.identity != nil {
		return *s.identity, nil
	}
	r := &authenticationv1.SelfSubjectReview{}
	err := s.authn.Post().Resource("selfsubjectreviews").Body(&authenticationv1.SelfSubjectReview{}).Do(ctx).Into(r)
	if apierrors.IsNotFound(err) {
		// Not "not found" (exit 3): the API is missing, which is a server too old to ask.
		return policy.Identity{}, fmt.Errorf("the API server at %s cannot say who you are: it does not serve SelfSubjectReview (authentication.k8s.io/v1, Kubernetes 1.28 and later)", s.Host())
	}
	if err != nil {
		return policy.Identity{}, err
	}
	id := policy.Identity{Username: r.Status.UserInfo.Username, Groups: r.Status.UserInfo.Groups}
	s.identity = &id
	return id, nil
}

// PlatformAdmin is the Team webhook's test (docs/rules.md §2.3): the first User whose e-mail
// matches decides by its isPlatformAdmin; when none matches, or id may not list Users, a
// SelfSubjectAccessReview for update on teams.butler.butlerlabs.dev decides. The answer is
// kept for the rest of the process.
func (s *Store) PlatformAdmin(ctx context.Context, id policy.Identity) (bool, string, error) {
	s.adminMu.Lock()
	defer s.adminMu.Unlock()
	if a := s.admin; a != nil && a.id.Username == id.Username && slices.Equal(a.id.Groups, id.Groups) {
		return a.ok, a.why, nil
	}
	ok, why, err := s.platformAdmin(ctx, id)
	if err == nil {
		s.admin = &adminAnswer{id: id, ok: ok, why: why}
	}
	return ok, why, err
}

func (s *Store) platformAdmin(ctx context.Context, id policy.Identity) (bool, string, error) {
	users, err := s.ListUsers(ctx)
	if err != nil && !apierrors.IsForbidden(err) {
		return false, "", err
	}
	if ok, decided, why := policy.PlatformAdmin(id, users); decided {
		return ok, why, nil
	}
	r := &authorizationv1.SelfSubjectAccessReview{}
	err = s.authz.Post().Resource("selfsubjectaccessreviews").Body(&authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group:    v1alpha1.GroupVersion.Group,
				Resource: "teams",
				Verb:     "update",
			},
		},
	}).Do(ctx).Into(r)
	if err != nil {
		return false, "", err
	}
	if r.Status.Allowed {
		return true, "may update teams.butler.butlerlabs.dev (SelfSubjectAccessReview)", nil
	}
	return false, "", nil
}

package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
)

// secretConflict is the failure of a request that names a Secret another
// request owns: the oldest AWS request naming a Secret owns it (creation
// time, then namespace/name), and the others write and delete nothing, so
// that the Secret never flips between two requests' keys. nil when cr owns
// its Secret. When the owner goes, the next oldest takes over at its next
// sync.
func (p *Provisioner) secretConflict(ctx context.Context, cr *leashv1.CredentialsRequest) (*Failure, error) {
	ref := cr.Spec.SecretRef
	named, err := p.cluster.RequestsNaming(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("list the requests naming Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	owner := secretOwnerOf(cr, named)
	if owner == nil || (owner.Namespace == cr.Namespace && owner.Name == cr.Name) {
		return nil, nil
	}
	return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonSecretConflict,
		Message: fmt.Sprintf("Secret %s/%s of spec.secretRef belongs to CredentialsRequest %s/%s, the oldest request naming it; leash writes nothing for this request while it does. Name another Secret in spec.secretRef, or delete %s/%s",
			ref.Namespace, ref.Name, owner.Namespace, owner.Name, owner.Namespace, owner.Name)}, nil
}

// secretOwnerOf is the oldest AWS request among named and cr itself (cr is
// counted whether or not the list already holds it, as a cache may lag):
// requests for other clouds write no Secret and own none.
func secretOwnerOf(cr *leashv1.CredentialsRequest, named []leashv1.CredentialsRequest) *leashv1.CredentialsRequest {
	candidates := []*leashv1.CredentialsRequest{cr}
	for i := range named {
		o := &named[i]
		if o.Namespace == cr.Namespace && o.Name == cr.Name {
			continue
		}
		if _, err := awsSpec(o); errors.Is(err, errNotAWS) {
			continue
		}
		candidates = append(candidates, o)
	}
	return slices.MinFunc(candidates, olderFirst)
}

// olderFirst orders requests by creation time, then by namespace/name: the
// order in which they own a Secret. Requests read from a folder have no
// creation time, so there the first by namespace/name owns it.
func olderFirst(a, b *leashv1.CredentialsRequest) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
}

// namesSecret says whether cr's spec.secretRef is namespace/name.
func namesSecret(cr *leashv1.CredentialsRequest, namespace, name string) bool {
	return cr.Spec.SecretRef.Namespace == namespace && cr.Spec.SecretRef.Name == name
}

package operator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"leash.dev/leash/internal/iamclient"
)

// Sweep deletes IAM users that leash minted for this cluster but that no
// request owns any more: left by a crash between CreateUser and the
// finalizer, or by a request deleted while leash was not running. A user
// younger than grace is spared, so that a request being created is not raced.
func (p *Provisioner) Sweep(ctx context.Context, liveUIDs map[string]bool, grace time.Duration, namespace string) (deleted []string, err error) {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return nil, err
	}
	users, err := rc.iam.ListUsers(ctx, userPath(p.cfg.ClusterName))
	if err != nil {
		return nil, err
	}
	now := p.now()
	for _, listed := range users {
		if now.Sub(listed.Created) < grace {
			continue
		}
		u, err := rc.iam.GetUser(ctx, listed.Name) // ListUsers carries no tags
		if err != nil {
			return deleted, err
		}
		uid, ok := u.Tags[TagRequestUID]
		if !ok || u.Tags[TagCluster] != p.cfg.ClusterName || liveUIDs[uid] ||
			(namespace != "" && !strings.HasPrefix(u.Tags[TagRequest], namespace+"/")) {
			continue
		}
		if err := p.deleteUser(ctx, rc.iam, u.Name, uid); err != nil {
			return deleted, fmt.Errorf("sweep %s: %w", u.Name, err)
		}
		deleted = append(deleted, u.Name)
	}
	roles, deleted, err := p.sweepRoles(ctx, rc, liveUIDs, grace, namespace, deleted)
	if err != nil {
		return deleted, err
	}
	for _, r := range roles {
		users = append(users, iamclient.User{Name: r}) // their policy parts are live too
	}
	return p.sweepPolicies(ctx, rc, users, grace, deleted)
}

// sweepRoles deletes the roles leash made in STS mode for this cluster
// whose request is gone, as Sweep does users, and returns the names of the
// roles that stay.
func (p *Provisioner) sweepRoles(ctx context.Context, rc *rootClient, liveUIDs map[string]bool, grace time.Duration, namespace string, deleted []string) ([]string, []string, error) {
	roles, err := rc.iam.ListRoles(ctx, userPath(p.cfg.ClusterName))
	if err != nil {
		return nil, deleted, err
	}
	now := p.now()
	var kept []string
	for _, listed := range roles {
		kept = append(kept, listed.Name)
		if now.Sub(listed.Created) < grace {
			continue
		}
		r, err := rc.iam.GetRole(ctx, listed.Name) // ListRoles carries no tags
		if err != nil {
			return kept, deleted, err
		}
		uid, ok := r.Tags[TagRequestUID]
		if !ok || r.Tags[TagCluster] != p.cfg.ClusterName || liveUIDs[uid] ||
			(namespace != "" && !strings.HasPrefix(r.Tags[TagRequest], namespace+"/")) {
			continue
		}
		made := mintedUser{role: true, name: listed.Name, path: userPath(p.cfg.ClusterName)}
		if _, err := p.deleteRole(ctx, rc.iam, made, uid); err != nil {
			return kept, deleted, fmt.Errorf("sweep %s: %w", listed.Name, err)
		}
		kept = kept[:len(kept)-1]
		deleted = append(deleted, listed.Name)
	}
	return kept, deleted, nil
}

// sweepPolicies deletes managed policies leash made for users that do not
// exist, any part of a split policy among them: left by a crash between
// CreatePolicy and AttachUserPolicy of a request that was then deleted
// without its finalizer.
func (p *Provisioner) sweepPolicies(ctx context.Context, rc *rootClient, users []iamclient.User, grace time.Duration, deleted []string) ([]string, error) {
	live := map[string]bool{}
	for _, u := range users {
		live[u.Name] = true
	}
	for _, name := range deleted {
		delete(live, name)
	}
	policies, err := rc.iam.ListPolicies(ctx, userPath(p.cfg.ClusterName))
	if err != nil {
		return deleted, err
	}
	now := p.now()
	for _, pol := range policies {
		user, ok := partUser(pol.Name)
		if !ok || pol.Attachments > 0 || live[user] || now.Sub(pol.Created) < grace {
			continue
		}
		if err := rc.iam.DeletePolicy(ctx, pol.ARN); err != nil {
			return deleted, fmt.Errorf("sweep %s: %w", pol.ARN, err)
		}
		deleted = append(deleted, pol.ARN)
	}
	return deleted, nil
}

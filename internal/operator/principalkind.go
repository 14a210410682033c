package operator

import (
	"context"

	"leash.dev/leash/internal/iamclient"
)

// The calls that differ between a minted user and a made role: the policy
// code in mint.go is written once against these, so that a role gets its
// statements exactly as a user does (inline, or managed policies over the
// inline quota).

func (u mintedUser) inlinePolicy(ctx context.Context, c *iamclient.Client) (string, error) {
	if u.role {
		return c.RolePolicy(ctx, u.name, u.policy)
	}
	return c.UserPolicy(ctx, u.name, u.policy)
}

func (u mintedUser) putInline(ctx context.Context, c *iamclient.Client, doc string) error {
	if u.role {
		return c.PutRolePolicy(ctx, u.name, u.policy, doc)
	}
	return c.PutUserPolicy(ctx, u.name, u.policy, doc)
}

func (u mintedUser) deleteInline(ctx context.Context, c *iamclient.Client) error {
	if u.role {
		return c.DeleteRolePolicy(ctx, u.name, u.policy)
	}
	return c.DeleteUserPolicy(ctx, u.name, u.policy)
}

func (u mintedUser) attached(ctx context.Context, c *iamclient.Client) ([]string, error) {
	if u.role {
		return c.AttachedRolePolicies(ctx, u.name)
	}
	return c.AttachedUserPolicies(ctx, u.name)
}

func (u mintedUser) attach(ctx context.Context, c *iamclient.Client, arn string) error {
	if u.role {
		return c.AttachRolePolicy(ctx, u.name, arn)
	}
	return c.AttachUserPolicy(ctx, u.name, arn)
}

func (u mintedUser) detach(ctx context.Context, c *iamclient.Client, arn string) error {
	if u.role {
		return c.DetachRolePolicy(ctx, u.name, arn)
	}
	return c.DetachUserPolicy(ctx, u.name, arn)
}

// describe names the principal in Events: "IAM user NAME" or "IAM role NAME".
func (u mintedUser) describe() string {
	if u.role {
		return "IAM role " + u.name
	}
	return "IAM user " + u.name
}

package store

import (
	"strings"

	"leash.dev/leash/localaws/internal/awsmanaged"
)

// checkManagedPolicy refuses, with IAM's NoSuchEntity and words, a managed
// policy ARN that names no policy: an account's own policy that is not in
// the store, or an arn:aws:iam::aws:policy/… ARN that is not in AWS's
// published set (awsmanaged). Every attachment, boundary and session
// policy ARN passes here before anything is recorded, so an unknown AWS
// ARN is refused as AWS refuses it and is never listed.
func (tx *Tx) checkManagedPolicy(arn string) error {
	if IsAWSManagedPolicy(arn) {
		if !awsmanaged.Exists(arn) {
			return refuse(NoSuchEntity, "Policy %s does not exist or is not attachable.", arn)
		}
		return nil
	}
	_, err := tx.GetPolicy(arn)
	return err
}

// serviceRolePath is the path of the AWS managed policies AWS keeps for
// service-linked roles, such as
// arn:aws:iam::aws:policy/aws-service-role/AmazonElasticsearchServiceRolePolicy.
const serviceRolePath = "/aws-service-role/"

// checkAttachable refuses an AWS service role policy as an attached policy
// or a permissions boundary. IAM's AttachRolePolicy, AttachUserPolicy,
// AttachGroupPolicy and Put*PermissionsBoundary answer PolicyNotAttachable:
// such a policy "can only be attached to the service-linked role for that
// service", and leash local has no service-linked roles. The message is the
// one IAM sends. An ARN under that path that AWS does not publish is
// NoSuchEntity first, as any unknown AWS ARN is.
func (tx *Tx) checkAttachable(arn string) error {
	account, path, _, ok := PolicyARNParts(arn)
	if !ok || account != awsAccount || !strings.HasPrefix(path, serviceRolePath) {
		return nil
	}
	if err := tx.checkManagedPolicy(arn); err != nil {
		return err
	}
	return refuse(PolicyNotAttachable, "Cannot attach a Service Role Policy to a Customer Role.")
}

package store

import "leash.dev/leash/localaws/internal/awsmanaged"

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

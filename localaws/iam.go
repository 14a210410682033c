package localaws

// iamOperations are the IAM actions leash local serves.
func iamOperations() map[string]operation {
	ops := map[string]operation{}
	iamUserOperations(ops)
	iamAccessKeyOperations(ops)
	return ops
}

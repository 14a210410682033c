package localaws

import (
	"unicode/utf8"

	"leash.dev/leash/localaws/internal/query"
)

// maxDocumentLength is the most characters IAM takes in a policy document
// parameter, white space included: the IAM API Reference gives every
// document parameter (PutUserPolicy's and PutRolePolicy's PolicyDocument,
// CreatePolicy's, CreatePolicyVersion's, CreateRole's and
// UpdateAssumeRolePolicy's, the simulations' PolicyInputList members) a
// maximum length of 131072. The size quotas, which count characters other
// than white space (PolicySize, ACLSizePerRole), are the store's and apply
// as well; this cap is what stops a small policy padded with white space.
const maxDocumentLength = 131072

// checkDocumentLength refuses a document of fewer than one or more than max
// characters with the ValidationError IAM and STS give, naming the
// parameter as they do (policyDocument) and never quoting the document.
// It is the one place a document parameter's length is checked: IAM's
// document parameters with maxDocumentLength, STS's session policy with its
// own, smaller, maximum.
func checkDocumentLength(param, doc string, max int) *query.Error {
	if n := utf8.RuneCountInString(doc); n < 1 || n > max {
		return hiddenInvalid(validationName(param), lengthConstraint(n, 1, max))
	}
	return nil
}

// checkDocumentListLength is checkDocumentLength for each document of a
// list parameter, such as PolicyInputList, worded as IAM words a
// constraint on a list's members.
func checkDocumentListLength(param string, docs []string) *query.Error {
	for _, doc := range docs {
		if n := utf8.RuneCountInString(doc); n < 1 || n > maxDocumentLength {
			return hiddenInvalid(validationName(param),
				"Member must satisfy constraint: ["+lengthConstraint(n, 1, maxDocumentLength)+"]")
		}
	}
	return nil
}

// validationName spells a parameter as AWS's validation messages do:
// PolicyDocument becomes policyDocument.
func validationName(param string) string {
	if param == "" || param[0] < 'A' || param[0] > 'Z' {
		return param
	}
	return string(param[0]+'a'-'A') + param[1:]
}

package store

import "strings"

// awsAccount is the account part of the ARNs of AWS managed policies.
const awsAccount = "aws"

func (a Account) userARN(path, name string) string {
	return "arn:aws:iam::" + a.ID + ":user" + path + name
}

func (a Account) roleARN(path, name string) string {
	return "arn:aws:iam::" + a.ID + ":role" + path + name
}

func (a Account) instanceProfileARN(path, name string) string {
	return "arn:aws:iam::" + a.ID + ":instance-profile" + path + name
}

func (a Account) policyARN(path, name string) string {
	return "arn:aws:iam::" + a.ID + ":policy" + path + name
}

// OIDCProviderARN is the ARN IAM gives the provider of an issuer URL: the URL
// without its scheme. AssumeRoleWithWebIdentity finds the provider of a
// token's iss claim with it.
func (a Account) OIDCProviderARN(url string) string {
	return "arn:aws:iam::" + a.ID + ":oidc-provider/" + strings.TrimPrefix(url, "https://")
}

// assumedRoleARN is the ARN of a role session. It has no path: IAM leaves the
// role's path out.
func (a Account) assumedRoleARN(roleName, sessionName string) string {
	return "arn:aws:sts::" + a.ID + ":assumed-role/" + roleName + "/" + sessionName
}

// PolicyARNParts splits arn:aws:iam::ACCOUNT:policy/PATH/NAME into the
// account, the path (/PATH/, or / for none) and the name.
func PolicyARNParts(arn string) (account, path, name string, ok bool) {
	rest, ok := strings.CutPrefix(arn, "arn:aws:iam::")
	if !ok {
		return "", "", "", false
	}
	account, rest, ok = strings.Cut(rest, ":policy/")
	if !ok || account == "" {
		return "", "", "", false
	}
	slash := strings.LastIndexByte(rest, '/')
	path, name = "/"+rest[:slash+1], rest[slash+1:]
	if name == "" {
		return "", "", "", false
	}
	return account, path, name, true
}

// IsAWSManagedPolicy reports whether arn names a policy AWS manages
// (arn:aws:iam::aws:policy/…). The store holds only the account's own
// policies: it refuses to record a use of an AWS managed one that is not in
// AWS's published set (see checkManagedPolicy), and the caller supplies
// their documents.
func IsAWSManagedPolicy(arn string) bool {
	account, _, _, ok := PolicyARNParts(arn)
	return ok && account == awsAccount
}

package localaws

import "leash.dev/leash/localaws/internal/store"

// summaryEntry is one key of GetAccountSummary's SummaryMap.
type summaryEntry struct {
	Key   string `xml:"key"`
	Value int    `xml:"value"`
}

type accountSummaryResult struct {
	SummaryMap []summaryEntry `xml:"SummaryMap>entry"`
}

// globalEndpointTokenVersion is the version of the session tokens STS's
// global endpoint issues: 1 in a new account, until
// SetSecurityTokenServicePreferences changes it, which leash local does not
// implement.
const globalEndpointTokenVersion = 1

// iamAccountSummaryOperations adds GetAccountSummary: the account's entity
// counts and quotas, the keys the IAM API reference lists for SummaryMap.
// Counts come from the store as it is; quotas are the limits the store
// enforces, or IAM's defaults for a new account where it enforces none.
// What leash local does not have is reported as none: the root user's
// access keys, password, signing certificates and MFA device (leash local
// has no root user's credentials, its administrator is an IAM user), MFA
// devices, server certificates, and SAML providers (Providers counts the
// OIDC providers).
func iamAccountSummaryOperations(ops map[string]operation) {
	ops["GetAccountSummary"] = operation{
		readOnly: true,
		// The action has no resource types: only Resource "*" grants it.
		target: func(*call) (target, error) { return target{resource: "*"}, nil },
		run: func(c *call) (any, error) {
			n := c.tx.Counts()
			inUse, err := c.tx.PolicyAttachments()
			if err != nil {
				return nil, err
			}
			q := store.AccountQuotas()
			return accountSummaryResult{SummaryMap: []summaryEntry{
				{"Users", n.Users}, {"UsersQuota", q.Users},
				{"Groups", n.Groups}, {"GroupsQuota", q.Groups},
				{"ServerCertificates", 0}, {"ServerCertificatesQuota", q.ServerCertificates},
				{"UserPolicySizeQuota", q.UserPolicySize}, {"GroupPolicySizeQuota", q.GroupPolicySize},
				{"GroupsPerUserQuota", q.GroupsPerUser},
				{"SigningCertificatesPerUserQuota", q.SigningCertificatesPerUser},
				{"AccessKeysPerUserQuota", q.AccessKeysPerUser},
				{"MFADevices", 0}, {"MFADevicesInUse", 0},
				{"AccountMFAEnabled", 0}, {"AccountAccessKeysPresent", 0},
				{"AccountPasswordPresent", 0}, {"AccountSigningCertificatesPresent", 0},
				{"AttachedPoliciesPerGroupQuota", q.AttachedPoliciesPerGroup},
				{"AttachedPoliciesPerRoleQuota", q.AttachedPoliciesPerRole},
				{"AttachedPoliciesPerUserQuota", q.AttachedPoliciesPerUser},
				{"Policies", n.Policies}, {"PoliciesQuota", q.Policies},
				{"PolicySizeQuota", q.PolicySize},
				{"PolicyVersionsInUse", inUse}, {"PolicyVersionsInUseQuota", q.PolicyVersionsInUse},
				{"VersionsPerPolicyQuota", q.VersionsPerPolicy},
				{"GlobalEndpointTokenVersion", globalEndpointTokenVersion},
				{"AssumeRolePolicySizeQuota", q.AssumeRolePolicySize},
				{"InstanceProfiles", n.InstanceProfiles}, {"InstanceProfilesQuota", q.InstanceProfiles},
				{"Providers", n.OIDCProviders},
				{"RolePolicySizeQuota", q.RolePolicySize},
				{"Roles", n.Roles}, {"RolesQuota", q.Roles},
			}}, nil
		},
	}
}

package operator

// Condition reasons. A CredentialsRequest's conditions carry one of these as
// their reason, and a refusal's Warning Event the same: scripts, alerts
// and `kubectl wait` key on them, so each is a stable name, never an inline
// string, and each says when it is set. docs/operator.md lists them.

// Reasons of the Ready and PolicyWarnings conditions and of a failure that
// was fixed.
const (
	// ReasonCredentialsReady: Ready True; the Secret holds working
	// credentials for the request.
	ReasonCredentialsReady = "CredentialsReady"
	// ReasonPending: Ready False before the first sync has decided
	// anything.
	ReasonPending = "Pending"
	// ReasonResolved: a failure condition turned False; its message says
	// which earlier reason no longer holds.
	ReasonResolved = "Resolved"
	// ReasonDeprovisioning: Ready False while removing a deleted
	// request's cloud resources fails (CredentialsDeprovisionFailure has
	// ReasonCloudError) and the finalizer stays.
	ReasonDeprovisioning = "Deprovisioning"
	// ReasonCatalogFindings: PolicyWarnings True; AWS's catalog finds
	// something doubtful but harmless in the statement entries (a
	// condition key none of the entry's actions carries).
	ReasonCatalogFindings = "CatalogFindings"
	// ReasonNoFindings: PolicyWarnings False after earlier findings; the
	// entries are clean now.
	ReasonNoFindings = "NoFindings"
	// ReasonPermissionsUnused: UnusedPermissions True; the principal used
	// none of some actions the request allows in the trail's window
	// (status.usage.unused lists them).
	ReasonPermissionsUnused = "PermissionsUnused"
	// ReasonAllPermissionsUsed: UnusedPermissions False; every action the
	// request allows was used in the window.
	ReasonAllPermissionsUsed = "AllPermissionsUsed"
	// ReasonUsageUnknown: UnusedPermissions Unknown; the trail could not be
	// read, or the request's principal is not its own (Passthrough).
	ReasonUsageUnknown = "UsageUnknown"
	// ReasonNotAWS: Ignored True; the request's providerSpec is another
	// cloud's, which leash leaves to others.
	ReasonNotAWS = "NotAWS"
	// ReasonCloudError: an AWS call failed for a reason the request cannot
	// fix (an outage, throttling); the sync is retried with backoff.
	ReasonCloudError = "CloudError"
)

// Reasons of a request refused by its own content, before any IAM call.
const (
	// ReasonInvalidRequest: a field of the request is not what AWS
	// accepts (an action or resource the catalog does not have, a
	// malformed stsIAMRoleARN, no entry at all); the message names the
	// field and the fix.
	ReasonInvalidRequest = "InvalidRequest"
	// ReasonNothingAllowed: every statement entry is a Deny, so the
	// credentials would be allowed nothing.
	ReasonNothingAllowed = "NothingAllowed"
	// ReasonUnrenderedTemplate: a field holds a template placeholder
	// (${NAMESPACE}, {{ .Values.x }}) the manifest's renderer left.
	ReasonUnrenderedTemplate = "UnrenderedTemplate"
	// ReasonActionNotAllowed: an action is outside the allow-list of the
	// request's namespace (namespaceActions in leash's ConfigMap).
	ReasonActionNotAllowed = "ActionNotAllowed"
	// ReasonPrivilegeEscalation: the request opens an escalation path at
	// or above --refuse-escalation.
	ReasonPrivilegeEscalation = "PrivilegeEscalation"
	// ReasonAboveCeiling: the ceiling does not allow an action on a
	// resource the request asks for.
	ReasonAboveCeiling = "AboveCeiling"
)

// Reasons of a request refused for where its Secret is: leash writes a
// Secret only where the request's author could have, so that a request is
// never a way to borrow leash's rights over every namespace.
const (
	// ReasonSecretReserved: the target is one of the operator's own Secrets.
	ReasonSecretReserved = "SecretReserved"
	// ReasonNamespaceNotAllowed: the target is in another namespace and the
	// request is not in an administrator namespace.
	ReasonNamespaceNotAllowed = "SecretNamespaceNotAllowed"
	// ReasonNamespaceNotServed: the target is outside the namespaces leash
	// may write Secrets in (--secret-namespaces).
	ReasonNamespaceNotServed = "SecretNamespaceNotServed"
	// ReasonPassthroughNotAllowed: a Passthrough request outside the
	// administrator namespaces, which would hand the root key to its author.
	ReasonPassthroughNotAllowed = "PassthroughNotAllowed"
	// ReasonSecretNotOwned: the target exists and is not the request's.
	ReasonSecretNotOwned = "SecretNotOwned"
	// ReasonSecretConflict: an older request owns the Secret the request
	// names.
	ReasonSecretConflict = "SecretConflict"
	// ReasonNamespaceNotFound: MissingTargetNamespace True; the namespace
	// of spec.secretRef does not exist yet.
	ReasonNamespaceNotFound = "NamespaceNotFound"
)

// Reasons of the operator's root credentials failing a request.
const (
	// ReasonRootCredentialsMissing: the operator has no root credentials
	// to act with.
	ReasonRootCredentialsMissing = "RootCredentialsMissing"
	// ReasonRootCredentialsInvalid: AWS does not know the root key.
	ReasonRootCredentialsInvalid = "RootCredentialsInvalid"
	// ReasonRootLacksPermissions: Passthrough mode, and the root
	// credentials lack permissions the request asks for.
	ReasonRootLacksPermissions = "RootLacksPermissions"
	// ReasonPermissionsUnknown: the principal whose permissions leash
	// checks (the root in Passthrough, a Manual key or role) may neither
	// read its policies nor simulate them, so the check cannot be made.
	ReasonPermissionsUnknown = "PermissionsUnknown"
)

// Reasons of Manual mode, where the administrator provides the Secret or
// the role and leash checks them.
const (
	// ReasonSecretMissing: the Secret a Manual request names does not
	// exist.
	ReasonSecretMissing = "SecretMissing"
	// ReasonSecretMalformed: the Secret lacks the key ID and secret, or
	// holds them in a form leash cannot read.
	ReasonSecretMalformed = "SecretMalformed"
	// ReasonInvalidKey: AWS does not know the Secret's key.
	ReasonInvalidKey = "InvalidKey"
	// ReasonMissingPermissions: the Secret's key lacks permissions the
	// request asks for.
	ReasonMissingPermissions = "MissingPermissions"
	// ReasonRoleNotFound: the role of spec.providerSpec.stsIAMRoleARN does
	// not exist; no Secret is written.
	ReasonRoleNotFound = "RoleNotFound"
	// ReasonRoleLacksPermissions: the role of stsIAMRoleARN lacks
	// permissions the request asks for; the Secret is still written, as
	// the role is the administrator's to fix.
	ReasonRoleLacksPermissions = "RoleLacksPermissions"
	// ReasonRoleTrustRefuses: the role's trust policy does not admit the
	// request's service accounts; the Secret is still written.
	ReasonRoleTrustRefuses = "RoleTrustRefuses"
)

// Reasons of the IAM principals leash makes: a name leash would use is
// another's.
const (
	// ReasonUserNameTaken: Mint mode, and the IAM user of the request's
	// name exists but is tagged for another request (or none).
	ReasonUserNameTaken = "UserNameTaken"
	// ReasonRoleNameTaken: STS mode with a role leash makes, and the IAM
	// role of the request's name exists but is tagged for another request
	// (or none).
	ReasonRoleNameTaken = "RoleNameTaken"
)

// Reasons of STS mode: the cluster's service-account issuer, its IAM OIDC
// provider, and the proof that a token of the request's service account
// assumes the role before the Secret is written.
const (
	// ReasonOIDCIssuerMissing: leash is to make the role and was started
	// without --oidc-issuer, so it knows no issuer for the role to trust.
	ReasonOIDCIssuerMissing = "OIDCIssuerMissing"
	// ReasonOIDCIssuerInvalid: --oidc-issuer is not an https URL IAM can
	// name an OIDC provider by.
	ReasonOIDCIssuerInvalid = "OIDCIssuerInvalid"
	// ReasonOIDCProviderNotFound: the account has no IAM OIDC provider
	// for the issuer, so no token of it can assume a role.
	ReasonOIDCProviderNotFound = "OIDCProviderNotFound"
	// ReasonTokenRequestForbidden: the API server refused the operator a
	// token of the service account for the proof.
	ReasonTokenRequestForbidden = "TokenRequestForbidden"
	// ReasonServiceAccountNotFound: spec.serviceAccountNames[0] does not
	// exist, so there is no token to prove the role with.
	ReasonServiceAccountNotFound = "ServiceAccountNotFound"
	// ReasonTokenRefused: STS refused the token itself (InvalidIdentityToken):
	// the issuer or its keys are not the provider's.
	ReasonTokenRefused = "TokenRefused"
	// ReasonTrustRefused: STS refused the token for the role
	// (AccessDenied): the role's trust does not allow it.
	ReasonTrustRefused = "TrustRefused"
)

// Reasons of Broker mode: the role leash makes for its credential broker
// and the engine's proof of it.
const (
	// ReasonBrokerPrincipalMissing: Broker mode, and the operator was
	// started without --broker-principal, so it knows no broker for the
	// role to trust.
	ReasonBrokerPrincipalMissing = "BrokerPrincipalMissing"
	// ReasonBrokerRoleUnproven: the engine did not prove the made role as
	// IAM holds it: its trust admits someone other than the broker, or the
	// broker without the request's namespace tag, or the role lacks a
	// requested permission.
	ReasonBrokerRoleUnproven = "BrokerRoleUnproven"
)

// Reasons of the cross-account checks.
const (
	// ReasonRoleUnchecked: the role is in an account leash cannot read.
	ReasonRoleUnchecked = "RoleUnchecked"
	// ReasonCheckRoleUnusable: the root credentials may not assume the
	// account's check role.
	ReasonCheckRoleUnusable = "CheckRoleUnusable"
)

// Reasons of leash.dev/revoke: sessions or keys issued before a time are
// to stop working.
const (
	// ReasonInvalidRevokeTime: the annotation's time cannot be read or is
	// in the future; nothing is revoked.
	ReasonInvalidRevokeTime = "InvalidRevokeTime"
	// ReasonRevokeNotOwned: Passthrough or Manual mode, whose credentials
	// leash hands out but does not own, so the operator retires nothing.
	ReasonRevokeNotOwned = "RevokeNotOwned"
	// ReasonRevokeNeedsRootCredentials: a role's sessions are to be
	// denied and the operator has no working root credentials to do it.
	ReasonRevokeNeedsRootCredentials = "RevokeNeedsRootCredentials"
	// ReasonRevokeNotProven: the deny policy read back from the role is
	// not the one written; the operator puts it again.
	ReasonRevokeNotProven = "RevokeNotProven"
	// ReasonRevokePermissionMissing: IAM refused the root credentials a
	// call the role's revocation needs.
	ReasonRevokePermissionMissing = "RevokePermissionMissing"
	// ReasonRevokeOtherAccount: leash.dev/revoke on a role of another
	// account, where leash writes nothing.
	ReasonRevokeOtherAccount = "RevokeOtherAccount"
)

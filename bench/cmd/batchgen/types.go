package main

// The JSON of a request, as the request contract of `leash simulate` has it.
// A document is a *document, or json.RawMessage when a shape writes its
// text itself (escapes, spacing).

type statement struct {
	Sid          string         `json:"Sid,omitempty"`
	Effect       string         `json:"Effect"`
	Principal    any            `json:"Principal,omitempty"`
	NotPrincipal any            `json:"NotPrincipal,omitempty"`
	Action       any            `json:"Action,omitempty"`
	NotAction    any            `json:"NotAction,omitempty"`
	Resource     any            `json:"Resource,omitempty"`
	NotResource  any            `json:"NotResource,omitempty"`
	Condition    map[string]any `json:"Condition,omitempty"`
}

type document struct {
	Version   string      `json:"Version,omitempty"`
	Statement []statement `json:"Statement"`
}

// lone is a document whose Statement is one object, not an array.
type lone struct {
	Version   string    `json:"Version,omitempty"`
	Statement statement `json:"Statement"`
}

type named struct {
	Name     string `json:"name"`
	Document any    `json:"document"`
}

type request struct {
	Principal           string         `json:"principal"`
	Action              string         `json:"action"`
	Resource            string         `json:"resource"`
	Context             map[string]any `json:"context,omitempty"`
	IdentityPolicies    []named        `json:"identityPolicies"`
	ResourcePolicy      any            `json:"resourcePolicy,omitempty"`
	PermissionsBoundary any            `json:"permissionsBoundary,omitempty"`
	SCPs                [][]named      `json:"scps"`
	RCPs                [][]named      `json:"rcps,omitempty"`
	SessionPolicy       any            `json:"sessionPolicy,omitempty"`
}

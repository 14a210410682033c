package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// Flags are the request-building flags of `leash simulate`, as given. The
// zero value of each field means the flag was not given.
type Flags struct {
	// Identity holds identity policy files, one policy each.
	Identity []string
	// SCP and RCP hold one element per organization level, root first; an
	// element is one file or several separated by commas (one level).
	SCP []string
	RCP []string
	// ResourcePolicy, Boundary and Session are one policy file each.
	ResourcePolicy string
	Boundary       string
	Session        string
	// Actions holds the actions to check, one request each.
	Actions []string
	// Resource is the resource ARN; empty means "*".
	Resource        string
	ResourceAccount string
	Principal       string
	// Context holds key=value pairs; a repeated key is multivalued.
	Context []string
}

// Given lists the flags that were given, by flag name, in the order of the
// --help text.
func (f *Flags) Given() []string {
	var given []string
	add := func(name string, set bool) {
		if set {
			given = append(given, "--"+name)
		}
	}
	add("identity", len(f.Identity) > 0)
	add("scp", len(f.SCP) > 0)
	add("rcp", len(f.RCP) > 0)
	add("resource-policy", f.ResourcePolicy != "")
	add("boundary", f.Boundary != "")
	add("session", f.Session != "")
	add("action", len(f.Actions) > 0)
	add("resource", f.Resource != "")
	add("resource-account", f.ResourceAccount != "")
	add("principal", f.Principal != "")
	add("context", len(f.Context) > 0)
	return given
}

// Cases reads and checks every policy file, then builds one Case per action,
// in the order the actions were given. Every file is read before any Case
// is returned, so that bad input is found before anything is answered.
func (f *Flags) Cases() ([]Case, error) {
	if len(f.Actions) == 0 {
		return nil, &inputerr.Error{Source: "--action", Msg: `missing; give the action to check, such as --action s3:GetObject (repeat it to check several), or give requests with --request FILE`}
	}
	resource := f.Resource
	if resource == "" {
		resource = "*"
	}
	context, err := contextFromFlags(f.Context)
	if err != nil {
		return nil, err
	}
	var identity []NamedDocument
	for _, file := range f.Identity {
		doc, err := readPolicyFile("--identity", file, policy.Identity)
		if err != nil {
			return nil, err
		}
		identity = append(identity, NamedDocument{Name: policyName(file), Document: doc})
	}
	scps, err := readLevels("--scp", f.SCP, policy.SCP)
	if err != nil {
		return nil, err
	}
	rcps, err := readLevels("--rcp", f.RCP, policy.RCP)
	if err != nil {
		return nil, err
	}
	var resourcePolicy json.RawMessage
	if f.ResourcePolicy != "" {
		// A role's trust policy has no Resource element, so the kind to
		// check depends on the action; check the file as every kind it will
		// be used as.
		if resourcePolicy, err = readPolicyFile("--resource-policy", f.ResourcePolicy, resourceKinds(f.Actions, resource)...); err != nil {
			return nil, err
		}
	}
	boundary, err := readOptionalPolicyFile("--boundary", f.Boundary, policy.Boundary)
	if err != nil {
		return nil, err
	}
	session, err := readOptionalPolicyFile("--session", f.Session, policy.Session)
	if err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(f.Actions))
	for _, action := range f.Actions {
		c := Case{
			Principal:           f.Principal,
			Action:              action,
			Resource:            resource,
			ResourceAccount:     f.ResourceAccount,
			Context:             context,
			IdentityPolicies:    identity,
			ResourcePolicy:      resourcePolicy,
			PermissionsBoundary: boundary,
			SCPs:                scps,
			RCPs:                rcps,
			SessionPolicy:       session,
		}
		// Compile now to report a bad value against the flag that gave it;
		// Run compiles again, which costs little next to reading files.
		if _, err := c.Compile("", ""); err != nil {
			return nil, blameFlag(err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func readOptionalPolicyFile(flag, file string, kind policy.Kind) (json.RawMessage, error) {
	if file == "" {
		return nil, nil
	}
	return readPolicyFile(flag, file, kind)
}

// readLevels reads --scp or --rcp: each occurrence is one organization
// level, and the files of one occurrence are separated by commas.
func readLevels(flag string, occurrences []string, kind policy.Kind) ([][]NamedDocument, error) {
	var levels [][]NamedDocument
	for _, occurrence := range occurrences {
		var level []NamedDocument
		for _, file := range strings.Split(occurrence, ",") {
			if strings.TrimSpace(file) == "" {
				return nil, &inputerr.Error{Source: flag, Msg: fmt.Sprintf(
					"%q has an empty file name; give one organization level per %s, its files separated by commas, such as %s root.json --scp ou.json,deny-regions.json", occurrence, flag, flag)}
			}
			doc, err := readPolicyFile(flag, file, kind)
			if err != nil {
				return nil, err
			}
			level = append(level, NamedDocument{Name: policyName(file), Document: doc})
		}
		levels = append(levels, level)
	}
	return levels, nil
}

// resourceKinds is every kind a resource policy is evaluated as for these
// actions: a trust policy for sts:AssumeRole*, a resource policy otherwise.
func resourceKinds(actions []string, resource string) []policy.Kind {
	var kinds []policy.Kind
	seen := map[policy.Kind]bool{}
	for _, a := range actions {
		k := policy.ResourcePolicyKind(a, resource)
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// blameFlag rewrites an error of Case.Compile, whose path is a Case field,
// to name the flag that gave the value.
func blameFlag(err error) error {
	var ie *inputerr.Error
	if !errors.As(err, &ie) {
		return err
	}
	if key, ok := strings.CutPrefix(ie.Field, "context."); ok {
		return &inputerr.Error{Source: "--context", Field: key, Msg: ie.Msg}
	}
	switch ie.Field {
	case "action":
		return &inputerr.Error{Source: "--action", Msg: ie.Msg}
	case "resource":
		return &inputerr.Error{Source: "--resource", Msg: ie.Msg}
	case "resourceAccount":
		return &inputerr.Error{Source: "--resource-account", Msg: ie.Msg}
	case "principal":
		return &inputerr.Error{Source: "--principal", Msg: ie.Msg}
	}
	return &inputerr.Error{Source: "flags", Field: ie.Field, Msg: ie.Msg}
}

package usage

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/policy"
)

// MaxResources is the most resources an action's calls may name for its
// entry to be narrowed to them: past it the calls are a controller's
// working set (instances it tags, load balancers it makes), not a fixed
// list, and the resource stays as written.
const MaxResources = 10

// ErrNothingUsed is Propose's error when no Allow statement saw a use: a
// request must grant something, and one whose principal did nothing in the
// window may not be needed at all.
var ErrNothingUsed = errors.New("its principal used none of the actions the request allows in the window read: no narrower request can be made (is the window long enough, and the trail the one its calls go to? a request nothing uses may be deleted)")

// Propose is the request's statementEntries cut down to what the report
// saw used, in the request's own style: each Allow statement keeps, in its
// place, the actions it matched that were used (in the catalog's spelling,
// so "ec2:Describe*" becomes the Describe actions called), with its
// condition; its resource narrows to the ARNs the calls named when every
// call of an action named one and they are at most MaxResources (one
// entry per resource, since an entry has one), else stays as written.
// keepResources keeps every resource as written. A statement nothing used goes; a Deny statement stays as it is.
// No entry is ever wider than the one it comes from.
func Propose(entries []leashv1.StatementEntry, r *Report, keepResources bool) ([]leashv1.StatementEntry, error) {
	var out []leashv1.StatementEntry
	allows := 0
	for i, e := range entries {
		if e.Effect != string(policy.Allow) {
			out = append(out, e)
			continue
		}
		byResource := map[string][]string{}
		for _, a := range r.Statements[i].Actions {
			for _, u := range a.Used {
				resources := u.Resources
				if keepResources || slices.Contains(resources, "*") || len(resources) > MaxResources {
					resources = []string{e.Resource}
				}
				for _, res := range resources {
					if !slices.Contains(byResource[res], u.Action) {
						byResource[res] = append(byResource[res], u.Action)
					}
				}
			}
		}
		// The resource as written first, then the narrowed ones in order.
		order := make([]string, 0, len(byResource))
		for res := range byResource {
			if res != e.Resource {
				order = append(order, res)
			}
		}
		slices.Sort(order)
		if _, ok := byResource[e.Resource]; ok {
			order = append([]string{e.Resource}, order...)
		}
		for _, res := range order {
			actions := byResource[res]
			slices.SortFunc(actions, cloudtrail.CompareActions)
			out = append(out, leashv1.StatementEntry{Effect: e.Effect, Action: actions, Resource: res, PolicyCondition: e.PolicyCondition})
			allows++
		}
	}
	if allows == 0 {
		return nil, ErrNothingUsed
	}
	return out, nil
}

// WithEntries is a copy of the request whose providerSpec holds entries
// instead of its statementEntries, every other field of it unchanged.
func WithEntries(cr *leashv1.CredentialsRequest, entries []leashv1.StatementEntry) (*leashv1.CredentialsRequest, error) {
	if cr.Spec.ProviderSpec == nil {
		return nil, fmt.Errorf("request %s/%s has no spec.providerSpec", cr.Namespace, cr.Name)
	}
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(cr.Spec.ProviderSpec.Raw, &spec); err != nil {
		return nil, fmt.Errorf("request %s/%s: spec.providerSpec: %w", cr.Namespace, cr.Name, err)
	}
	list, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	spec["statementEntries"] = list
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	out := cr.DeepCopy()
	out.Spec.ProviderSpec = &runtime.RawExtension{Raw: raw}
	return out, nil
}

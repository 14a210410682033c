package operator

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// maxManagedPolicies is IAM's default quota of managed policies attached to
// one user: the most parts a minted policy may be split into.
const maxManagedPolicies = 10

// policyPart is one policy of a minted user: the inline policy, or one of
// the customer managed policies its statements are split across.
type policyPart struct {
	name, arn, doc string
	want           *policy.Document
}

// policyPlan is where a minted user's policy goes: inline when it fits
// IAM's inline limit, else one managed policy, else several, each holding
// whole statements. The parts are named by their index, so that a retry
// after a crash finds the ones it made.
type policyPlan struct {
	inline bool
	parts  []policyPart
}

// note says in the Ready message how the policy was stored when it had to
// be split.
func (pl policyPlan) note() string {
	if len(pl.parts) < 2 {
		return ""
	}
	return fmt.Sprintf("policy split across %d managed policies", len(pl.parts))
}

// planPolicy is the minted user's policy: the request's statements and
// leash's own, laid out to fit IAM's quotas. The request is refused only
// when its statements cannot fit whatever leash adds: a single statement
// over a managed policy's limit, or more statements than the managed
// policies a user may have can hold.
func planPolicy(spec *leashv1.AWSProviderSpec, u mintedUser, own ...policyStatement) (policyPlan, error) {
	doc, want, err := requestedPolicy(spec, own...)
	if err != nil {
		return policyPlan{}, err
	}
	if want.Size <= inlinePolicyLimit {
		return policyPlan{inline: true, parts: []policyPart{{name: u.policy, doc: doc, want: want}}}, nil
	}
	if want.Size <= managedPolicyLimit {
		return policyPlan{parts: []policyPart{{name: u.policy, arn: u.partARN(0), doc: doc, want: want}}}, nil
	}
	entries := append(slices.Clone(spec.StatementEntries), own...)
	bins, err := packStatements(entries, want.Size, len(spec.StatementEntries))
	if err != nil {
		return policyPlan{}, err
	}
	var plan policyPlan
	for i, bin := range bins {
		doc, want, err := statementsPolicy(entries, bin)
		if err != nil {
			return policyPlan{}, err
		}
		plan.parts = append(plan.parts, policyPart{name: partName(u.name, i), arn: u.partARN(i), doc: doc, want: want})
	}
	return plan, nil
}

// packStatements puts whole statements into as few managed policies as
// first fit, largest first, finds, each within IAM's limit; the statements
// of a part keep the request's order. requested is how many of entries are
// the request's own, for messages. total is the size of the whole policy.
func packStatements(entries []leashv1.StatementEntry, total, requested int) ([][]int, error) {
	sizes := make([]int, len(entries))
	for i := range entries {
		_, d, err := statementsPolicy(entries, []int{i})
		if err != nil {
			return nil, err
		}
		sizes[i] = d.Size
		if d.Size > managedPolicyLimit {
			return nil, &inputerr.Error{Field: fmt.Sprintf("spec.providerSpec.statementEntries[%d]", i),
				Msg: fmt.Sprintf("makes a policy of %d characters without whitespace on its own, over IAM's limit of %d for a managed policy; split it into several statements (by service or by resource) or use wildcards such as ec2:Describe*",
					d.Size, managedPolicyLimit)}
		}
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return sizes[b] - sizes[a] })
	var bins [][]int
	for _, i := range order {
		placed := false
		for b := range bins {
			try := append(slices.Clone(bins[b]), i)
			slices.Sort(try)
			_, d, err := statementsPolicy(entries, try)
			if err != nil {
				return nil, err
			}
			if d.Size <= managedPolicyLimit {
				bins[b], placed = try, true
				break
			}
		}
		if !placed {
			bins = append(bins, []int{i})
		}
	}
	if len(bins) > maxManagedPolicies {
		return nil, &inputerr.Error{Field: "spec.providerSpec.statementEntries",
			Msg: fmt.Sprintf("make a policy of %d characters without whitespace (statements of %s); packed whole into managed policies of at most %d they need %d, over IAM's default quota of %d managed policies attached to a user; merge statements or use wildcards such as ec2:Describe*",
				total, statementSizes(sizes[:requested]), managedPolicyLimit, len(bins), maxManagedPolicies)}
	}
	return bins, nil
}

// statementsPolicy is the policy of the chosen entries, as IAM is sent it.
func statementsPolicy(entries []leashv1.StatementEntry, chosen []int) (string, *policy.Document, error) {
	part := make([]leashv1.StatementEntry, len(chosen))
	for j, i := range chosen {
		part[j] = entries[i]
	}
	return requestedPolicy(&leashv1.AWSProviderSpec{StatementEntries: part})
}

func statementSizes(sizes []int) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ") + " characters"
}

// partName is the name of a minted user's policy part: the inline policy's
// name for the first, then -2, -3, and so on.
func partName(user string, i int) string {
	if i == 0 {
		return policyName(user)
	}
	return fmt.Sprintf("%s-%d", policyName(user), i+1)
}

// partNames are the names every policy part of a user may have.
func partNames(user string) []string {
	names := make([]string, maxManagedPolicies)
	for i := range names {
		names[i] = partName(user, i)
	}
	return names
}

// partPattern matches the ends of the names partName makes.
var partPattern = regexp.MustCompile(`-policy(-[0-9]+)?$`)

// partUser is the user a policy part named name was made for, for the
// sweep; false when name is not one partName makes.
func partUser(name string) (string, bool) {
	loc := partPattern.FindStringIndex(name)
	if loc == nil {
		return "", false
	}
	return name[:loc[0]], true
}

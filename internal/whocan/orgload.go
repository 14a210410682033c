package whocan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/mapfile"
	"leash.dev/leash/policy"
)

// An organization folder holds, each file the unchanged output of one AWS
// CLI command, so that a short script writes it (docs/who-can.md):
//
//	organization.json        aws organizations describe-organization
//	roots.json               aws organizations list-roots
//	ous/PARENT.json          aws organizations list-organizational-units-for-parent --parent-id PARENT
//	accounts/PARENT.json     aws organizations list-accounts-for-parent --parent-id PARENT
//	scps/TARGET.json         aws organizations list-policies-for-target --target-id TARGET --filter SERVICE_CONTROL_POLICY
//	rcps/TARGET.json         aws organizations list-policies-for-target --target-id TARGET --filter RESOURCE_CONTROL_POLICY
//	policies/POLICY.json     aws organizations describe-policy --policy-id POLICY
//	snapshots/ACCOUNT.json   aws iam get-account-authorization-details, in that account
//
// PARENT is the root's and each OU's ID, TARGET also each account's. An
// organization without RCPs (or SCPs) leaves the rcps (scps) folder out.

// The folder's files, by what they hold.
const (
	orgFile      = "organization.json"
	rootsFile    = "roots.json"
	ousDir       = "ous"
	accountsDir  = "accounts"
	scpsDir      = "scps"
	rcpsDir      = "rcps"
	policiesDir  = "policies"
	snapshotsDir = "snapshots"
)

// Organization is an organization's tree, its SCPs and RCPs, and the
// snapshots of its accounts.
type Organization struct {
	// Dir is the folder it was read from, for messages.
	Dir string
	// ID is the organization's ID (o-...), the value of
	// aws:PrincipalOrgID for its principals.
	ID string
	// Management is the management account's ID: no SCP or RCP applies to
	// its principals or resources.
	Management string
	Root       *OrgNode
	// Accounts is every account of the tree, by ID.
	Accounts map[string]*OrgNode
	// Snapshots are the accounts' snapshots, by account ID; an account
	// without one has no principals to ask.
	Snapshots map[string]*Snapshot
	// Warnings are about the folder: accounts without a snapshot.
	Warnings []string
	// HasSCPs and HasRCPs say the folder holds the kind's attachments
	// (scps/, rcps/); without, the organization has none of it.
	HasSCPs, HasRCPs bool
}

// OrgNode is the root, an OU or an account.
type OrgNode struct {
	ID, Name string
	// Parent is nil at the root.
	Parent   *OrgNode
	Children []*OrgNode // OUs, then accounts
	Account  bool
	// SCPs and RCPs are the policies attached to the node.
	SCPs, RCPs []policy.Named
}

// path is the nodes from the root down to n.
func (n *OrgNode) path() []*OrgNode {
	var out []*OrgNode
	for at := n; at != nil; at = at.Parent {
		out = append([]*OrgNode{at}, out...)
	}
	return out
}

// The CLI outputs read, as the AWS Organizations API documents them.
type (
	describeOrganization struct {
		Organization *struct {
			ID              string `json:"Id"`
			MasterAccountID string `json:"MasterAccountId"`
		}
	}
	listRoots struct {
		Roots *[]struct {
			ID   string `json:"Id"`
			Name string
		}
	}
	listOUs struct {
		OrganizationalUnits *[]struct {
			ID   string `json:"Id"`
			Name string
		}
	}
	listAccounts struct {
		Accounts *[]struct {
			ID     string `json:"Id"`
			Name   string
			Status string
		}
	}
	listPolicies struct {
		Policies *[]struct {
			ID   string `json:"Id"`
			Name string
			Type string
		}
	}
	describePolicy struct {
		Policy *struct {
			PolicySummary struct {
				ID   string `json:"Id"`
				Name string
				Type string
			}
			Content string
		}
	}
)

// orgReader reads one folder.
type orgReader struct {
	dir      string
	org      *Organization
	nodes    map[string]*OrgNode
	policies map[string]policy.Named
}

// LoadOrganization reads an organization folder. Every error names the
// file and the command that writes it.
func LoadOrganization(dir string) (*Organization, error) {
	r := &orgReader{dir: dir, org: &Organization{Dir: dir, Accounts: map[string]*OrgNode{}, Snapshots: map[string]*Snapshot{}},
		nodes: map[string]*OrgNode{}, policies: map[string]policy.Named{}}
	if err := r.readOrganization(); err != nil {
		return nil, err
	}
	if err := r.readTree(); err != nil {
		return nil, err
	}
	for _, kind := range []policy.Kind{policy.SCP, policy.RCP} {
		if err := r.readAttachments(kind); err != nil {
			return nil, err
		}
	}
	if _, ok := r.org.Accounts[r.org.Management]; !ok {
		return nil, r.errf(filepath.Join(accountsDir, ""), "the management account %s (MasterAccountId of %s) is in no accounts/PARENT.json: write every parent's list-accounts-for-parent", r.org.Management, orgFile)
	}
	if err := r.readSnapshots(); err != nil {
		return nil, err
	}
	return r.org, nil
}

func (r *orgReader) errf(file, format string, args ...any) error {
	return &inputerr.Error{Source: filepath.Join(r.dir, file), Msg: fmt.Sprintf(format, args...)}
}

// read decodes a file of the folder into v; missing says what writes it.
func (r *orgReader) read(file, command string, v any) error {
	data, err := os.ReadFile(filepath.Join(r.dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		return r.errf(file, "missing: write it with `%s > %s`", command, file)
	}
	if err != nil {
		return r.errf(file, "cannot read: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return r.errf(file, "not the JSON output of `%s`: %v", command, err)
	}
	return nil
}

func (r *orgReader) readOrganization() error {
	const command = "aws organizations describe-organization"
	var d describeOrganization
	if err := r.read(orgFile, command, &d); err != nil {
		return err
	}
	if d.Organization == nil || !strings.HasPrefix(d.Organization.ID, "o-") {
		return r.errf(orgFile, "Organization.Id: want the organization's ID (o-...); write the file with `%s`", command)
	}
	if !policy.IsAccountID(d.Organization.MasterAccountID) {
		return r.errf(orgFile, "Organization.MasterAccountId %q: want the management account's 12-digit ID; write the file with `%s`", d.Organization.MasterAccountID, command)
	}
	r.org.ID, r.org.Management = d.Organization.ID, d.Organization.MasterAccountID
	return nil
}

// readTree walks the tree from the root, each parent's OUs and accounts.
func (r *orgReader) readTree() error {
	var roots listRoots
	if err := r.read(rootsFile, "aws organizations list-roots", &roots); err != nil {
		return err
	}
	if roots.Roots == nil || len(*roots.Roots) != 1 || (*roots.Roots)[0].ID == "" {
		return r.errf(rootsFile, "Roots: want the organization's one root; write the file with `aws organizations list-roots`")
	}
	root := &OrgNode{ID: (*roots.Roots)[0].ID, Name: (*roots.Roots)[0].Name}
	r.org.Root, r.nodes[root.ID] = root, root
	queue := []*OrgNode{root}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		ousFile := filepath.Join(ousDir, parent.ID+".json")
		var ous listOUs
		if err := r.read(ousFile, "aws organizations list-organizational-units-for-parent --parent-id "+parent.ID, &ous); err != nil {
			return err
		}
		if ous.OrganizationalUnits == nil {
			return r.errf(ousFile, "OrganizationalUnits is missing: write the file with `aws organizations list-organizational-units-for-parent --parent-id %s`", parent.ID)
		}
		for _, ou := range *ous.OrganizationalUnits {
			if prev, ok := r.nodes[ou.ID]; ok {
				return r.errf(ousFile, "OU %s is listed under %s and already under %s: the tree has a cycle or a duplicate; write each parent's file again", ou.ID, parent.ID, parentID(prev))
			}
			n := &OrgNode{ID: ou.ID, Name: ou.Name, Parent: parent}
			r.nodes[ou.ID] = n
			parent.Children = append(parent.Children, n)
			queue = append(queue, n)
		}
		accFile := filepath.Join(accountsDir, parent.ID+".json")
		var accs listAccounts
		if err := r.read(accFile, "aws organizations list-accounts-for-parent --parent-id "+parent.ID, &accs); err != nil {
			return err
		}
		if accs.Accounts == nil {
			return r.errf(accFile, "Accounts is missing: write the file with `aws organizations list-accounts-for-parent --parent-id %s`", parent.ID)
		}
		for _, a := range *accs.Accounts {
			if !policy.IsAccountID(a.ID) {
				return r.errf(accFile, "account Id %q: want a 12-digit account ID", a.ID)
			}
			if prev, ok := r.nodes[a.ID]; ok {
				return r.errf(accFile, "account %s is listed under %s and already under %s: an account has one parent; write each parent's file again", a.ID, parent.ID, parentID(prev))
			}
			n := &OrgNode{ID: a.ID, Name: a.Name, Parent: parent, Account: true}
			r.nodes[a.ID], r.org.Accounts[a.ID] = n, n
			parent.Children = append(parent.Children, n)
		}
	}
	return r.unreached()
}

// unreached refuses a parent's file for a parent the walk from the root
// did not reach: OUs that are each other's parents (a cycle), or a file
// left from another tree.
func (r *orgReader) unreached() error {
	for _, dir := range []string{ousDir, accountsDir} {
		entries, err := os.ReadDir(filepath.Join(r.dir, dir))
		if err != nil {
			continue // the walk read every file it needs
		}
		for _, e := range entries {
			id := strings.TrimSuffix(e.Name(), ".json")
			if n, ok := r.nodes[id]; !e.IsDir() && (!ok || n.Account) {
				return r.errf(filepath.Join(dir, e.Name()), "%s is not an OU reached from the root %s: its OUs are in a cycle, or the file is left from another tree; write the tree's files again", id, r.org.Root.ID)
			}
		}
	}
	return nil
}

func parentID(n *OrgNode) string {
	if n.Parent == nil {
		return "no parent (it is the root)"
	}
	return n.Parent.ID
}

// readAttachments reads the SCPs (or RCPs) attached to each node. A folder
// left out means the organization has none of the kind; with the folder,
// every node needs its file.
func (r *orgReader) readAttachments(kind policy.Kind) error {
	dir, filter, typ := scpsDir, "SERVICE_CONTROL_POLICY", "SERVICE_CONTROL_POLICY"
	if kind == policy.RCP {
		dir, filter, typ = rcpsDir, "RESOURCE_CONTROL_POLICY", "RESOURCE_CONTROL_POLICY"
	}
	entries, err := os.ReadDir(filepath.Join(r.dir, dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return r.errf(dir, "cannot read: %v", err)
	}
	if kind == policy.SCP {
		r.org.HasSCPs = true
	} else {
		r.org.HasRCPs = true
	}
	for _, e := range entries {
		target := strings.TrimSuffix(e.Name(), ".json")
		if _, ok := r.nodes[target]; !ok && !e.IsDir() {
			return r.errf(filepath.Join(dir, e.Name()), "policies are attached to %s, which is not in the tree (the root, its OUs and accounts from roots.json, ous/ and accounts/): write the tree's files again, or remove this file", target)
		}
	}
	ids := sortedKeys(r.nodes)
	for _, id := range ids {
		n := r.nodes[id]
		if n.Account && n.ID == r.org.Management {
			continue // no SCP or RCP applies to the management account
		}
		file := filepath.Join(dir, id+".json")
		command := fmt.Sprintf("aws organizations list-policies-for-target --target-id %s --filter %s", id, filter)
		var list listPolicies
		if err := r.read(file, command, &list); err != nil {
			return err
		}
		if list.Policies == nil {
			return r.errf(file, "Policies is missing: write the file with `%s`", command)
		}
		for i, p := range *list.Policies {
			if p.Type != "" && p.Type != typ {
				return r.errf(file, "Policies[%d] %s is of type %s, not %s: write the file with `%s`", i, p.ID, p.Type, typ, command)
			}
			named, err := r.policy(p.ID, typ, kind)
			if err != nil {
				return err
			}
			if kind == policy.SCP {
				n.SCPs = append(n.SCPs, named)
			} else {
				n.RCPs = append(n.RCPs, named)
			}
		}
	}
	return nil
}

// policy reads (once) the document of a policy.
func (r *orgReader) policy(id, typ string, kind policy.Kind) (policy.Named, error) {
	if n, ok := r.policies[id]; ok {
		return n, nil
	}
	file := filepath.Join(policiesDir, id+".json")
	command := "aws organizations describe-policy --policy-id " + id
	var d describePolicy
	if err := r.read(file, command, &d); err != nil {
		return policy.Named{}, err
	}
	if d.Policy == nil || d.Policy.Content == "" {
		return policy.Named{}, r.errf(file, "Policy.Content is missing: write the file with `%s`", command)
	}
	if d.Policy.PolicySummary.ID != id {
		return policy.Named{}, r.errf(file, "Policy.PolicySummary.Id is %q, not %s as the file's name says: write the file with `%s`", d.Policy.PolicySummary.ID, id, command)
	}
	if t := d.Policy.PolicySummary.Type; t != "" && t != typ {
		return policy.Named{}, r.errf(file, "Policy.PolicySummary.Type is %s, and the policy is attached as %s", t, typ)
	}
	doc, err := policy.Parse([]byte(d.Policy.Content), kind)
	if err != nil {
		return policy.Named{}, r.errf(file, "Policy.Content: %v", err)
	}
	name := d.Policy.PolicySummary.Name
	if name == "" {
		name = id
	}
	n := policy.Named{Name: name + " (" + id + ")", Document: doc}
	r.policies[id] = n
	return n, nil
}

// readSnapshots reads each account's snapshot: one of an account not in
// the tree, or whose principals are of another account, is refused; an
// account without one is a warning.
func (r *orgReader) readSnapshots() error {
	entries, err := os.ReadDir(filepath.Join(r.dir, snapshotsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r.errf(snapshotsDir, "cannot read: %v", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		file := filepath.Join(snapshotsDir, e.Name())
		id := strings.TrimSuffix(e.Name(), ".json")
		if _, ok := r.org.Accounts[id]; !ok {
			return r.errf(file, "account %s is not in the organization's tree (accounts/PARENT.json): name each snapshot ACCOUNT_ID.json after an account of the organization, or remove it", id)
		}
		data, err := mapfile.Read(filepath.Join(r.dir, file))
		if err != nil {
			return r.errf(file, "cannot read: %v", err)
		}
		s, err := Parse(data, filepath.Join(r.dir, file))
		if err != nil {
			return err
		}
		if other := snapshotAccount(s, id); other != "" {
			return r.errf(file, "%s is of account %s, and the file's name says %s: write each account's `aws iam get-account-authorization-details` to snapshots/ACCOUNT_ID.json with that account's credentials", other, accountOf(other), id)
		}
		r.org.Snapshots[id] = s
	}
	for _, id := range sortedKeys(r.org.Accounts) {
		if _, ok := r.org.Snapshots[id]; !ok {
			r.org.Warnings = append(r.org.Warnings, fmt.Sprintf("account %s (%s) has no snapshot %s: its principals are not asked; write it with `aws iam get-account-authorization-details` in that account",
				id, r.org.Accounts[id].Name, filepath.Join(r.dir, snapshotsDir, id+".json")))
		}
	}
	sort.Strings(r.org.Warnings)
	return nil
}

// snapshotAccount is the ARN of the first user, group or role of s that is
// not of the account, "" when all are.
func snapshotAccount(s *Snapshot, account string) string {
	for _, u := range s.Users {
		if accountOf(u.ARN) != account {
			return u.ARN
		}
	}
	for _, r := range s.Roles {
		if accountOf(r.ARN) != account {
			return r.ARN
		}
	}
	for _, name := range sortedKeys(s.Groups) {
		if arn := s.Groups[name].ARN; accountOf(arn) != account {
			return arn
		}
	}
	return ""
}

// accountOf is the account field of an ARN ("" for anything else), without
// allocating: it is asked for every request in an organization.
func accountOf(arn string) string {
	if !strings.HasPrefix(arn, "arn:") {
		return ""
	}
	// arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE
	colons, start := 1, 0
	for i := 4; i < len(arn); i++ {
		if arn[i] != ':' {
			continue
		}
		colons++
		switch colons {
		case 4:
			start = i + 1
		case 5:
			return arn[start:i]
		}
	}
	return ""
}

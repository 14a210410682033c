package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// An organization is written as `leash who-can --org` reads it: each file
// the output of one AWS Organizations CLI command, and a snapshot per
// account (docs/who-can.md). The tree is the root, holding the management
// account and the OU workloads, which holds the OUs prod and dev; the
// member accounts alternate between prod and dev. SCPs sit at three levels
// (a region deny at the root, a service deny on workloads, a guard on prod)
// beside AWS's FullAWSAccess on every node; an RCP at the root refuses
// principals outside the organization.

// The generated organization's IDs.
const (
	genOrgID   = "o-generated01"
	genRoot    = "r-gen1"
	genOUWork  = "ou-gen1-workload"
	genOUProd  = "ou-gen1-prod0001"
	genOUDev   = "ou-gen1-dev00001"
	genOrgMgmt = 0 // the index of the management account
)

// orgAccountID is the i-th account's ID.
func orgAccountID(i int) string { return fmt.Sprintf("%012d", 200000000000+i) }

type orgPolicyDef struct {
	id, name, typ string
	awsManaged    bool
	doc           document
}

func orgPolicies() []orgPolicyDef {
	const scp, rcp = "SERVICE_CONTROL_POLICY", "RESOURCE_CONTROL_POLICY"
	return []orgPolicyDef{
		{"p-FullAWSAccess", "FullAWSAccess", scp, true, document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: "*", Resource: "*"}}}},
		{"p-RCPFullAWSAccess", "RCPFullAWSAccess", rcp, true, document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Principal: "*", Action: "*", Resource: "*"}}}},
		{"p-genregion01", "DenyOtherRegions", scp, false, document{Version: "2012-10-17", Statement: []statement{{
			Sid: "DenyOtherRegions", Effect: "Deny",
			NotAction: []string{"iam:*", "sts:*", "organizations:*", "support:*", "cloudfront:*", "route53:*"}, Resource: "*",
			Condition: map[string]map[string]any{"StringNotEquals": {"aws:RequestedRegion": []string{"us-east-1", "eu-west-1"}}}}}}},
		{"p-genservice1", "DenyUnusedServices", scp, false, document{Version: "2012-10-17", Statement: []statement{{
			Sid: "DenyUnusedServices", Effect: "Deny", Action: []string{"redshift:*", "sagemaker:*", "gamelift:*"}, Resource: "*"}}}},
		{"p-genprod0001", "ProtectProd", scp, false, document{Version: "2012-10-17", Statement: []statement{{
			Sid: "ProtectProd", Effect: "Deny", Action: []string{"iam:CreateUser", "iam:CreateAccessKey", "cloudtrail:StopLogging", "cloudtrail:DeleteTrail"}, Resource: "*"}}}},
		{"p-genrcporg1", "OnlyTheOrganization", rcp, false, document{Version: "2012-10-17", Statement: []statement{{
			Sid: "OnlyTheOrganization", Effect: "Deny", Principal: "*", Action: []string{"s3:*", "sqs:*", "secretsmanager:*", "kms:*", "sts:AssumeRole"}, Resource: "*",
			Condition: map[string]map[string]any{
				"StringNotEqualsIfExists": {"aws:PrincipalOrgID": genOrgID},
				"BoolIfExists":            {"aws:PrincipalIsAWSService": "false"},
			}}}}},
	}
}

// orgFiles is the organization's files but the snapshots, by name.
type orgFiles map[string]any

// orgARN is an Organizations ARN of the generated organization.
func orgARN(kind, id string) string {
	return "arn:aws:organizations::" + orgAccountID(genOrgMgmt) + ":" + kind + "/" + genOrgID + "/" + id
}

type orgNode struct {
	ID   string `json:"Id"`
	Arn  string `json:"Arn"`
	Name string `json:"Name"`
}

type orgAccount struct {
	ID              string `json:"Id"`
	Arn             string `json:"Arn"`
	Email           string `json:"Email"`
	Name            string `json:"Name"`
	Status          string `json:"Status"`
	JoinedMethod    string `json:"JoinedMethod"`
	JoinedTimestamp string `json:"JoinedTimestamp"`
}

// tree adds describe-organization, list-roots and each parent's
// list-organizational-units-for-parent and list-accounts-for-parent.
func (f orgFiles) tree(ids []string) {
	mgmt := ids[genOrgMgmt]
	f["organization.json"] = map[string]any{"Organization": map[string]any{
		"Id": genOrgID, "Arn": "arn:aws:organizations::" + mgmt + ":organization/" + genOrgID, "FeatureSet": "ALL",
		"MasterAccountArn": orgARN("account", mgmt), "MasterAccountId": mgmt, "MasterAccountEmail": "management@example.com"}}
	f["roots.json"] = map[string]any{"Roots": []any{map[string]any{"Id": genRoot, "Arn": "arn:aws:organizations::" + mgmt + ":root/" + genOrgID + "/" + genRoot, "Name": "Root",
		"PolicyTypes": []any{map[string]string{"Type": "SERVICE_CONTROL_POLICY", "Status": "ENABLED"}, map[string]string{"Type": "RESOURCE_CONTROL_POLICY", "Status": "ENABLED"}}}}}
	f["ous/"+genRoot+".json"] = map[string]any{"OrganizationalUnits": []orgNode{{genOUWork, orgARN("ou", genOUWork), "workloads"}}}
	f["ous/"+genOUWork+".json"] = map[string]any{"OrganizationalUnits": []orgNode{{genOUProd, orgARN("ou", genOUProd), "prod"}, {genOUDev, orgARN("ou", genOUDev), "dev"}}}
	f["ous/"+genOUProd+".json"] = map[string]any{"OrganizationalUnits": []orgNode{}}
	f["ous/"+genOUDev+".json"] = map[string]any{"OrganizationalUnits": []orgNode{}}
	children := map[string][]orgAccount{genRoot: {}, genOUWork: {}, genOUProd: {}, genOUDev: {}}
	for i, id := range ids {
		parent := genRoot
		switch {
		case i == genOrgMgmt:
		case i%2 == 1:
			parent = genOUProd
		default:
			parent = genOUDev
		}
		name := fmt.Sprintf("account-%03d", i)
		children[parent] = append(children[parent], orgAccount{id, orgARN("account", id), name + "@example.com", name, "ACTIVE", "CREATED", "2024-01-02T03:04:05.000000+00:00"})
	}
	for parent, list := range children {
		f["accounts/"+parent+".json"] = map[string]any{"Accounts": list}
	}
}

// policies adds each policy's describe-policy and each node's
// list-policies-for-target, for SCPs and RCPs.
func (f orgFiles) policies(ids []string) {
	byID := map[string]orgPolicyDef{}
	for _, d := range orgPolicies() {
		byID[d.id] = d
		arn := orgARN("policy", strings.ToLower(d.typ)+"/"+d.id)
		if d.awsManaged {
			arn = "arn:aws:organizations::aws:policy/" + strings.ToLower(d.typ) + "/" + d.id
		}
		f["policies/"+d.id+".json"] = map[string]any{"Policy": map[string]any{
			"PolicySummary": map[string]any{"Id": d.id, "Arn": arn, "Name": d.name, "Description": d.name, "Type": d.typ, "AwsManaged": d.awsManaged},
			"Content":       d.doc.text()}}
	}
	attach := func(folder, target string, pids ...string) {
		var list []map[string]any
		for _, id := range pids {
			d := byID[id]
			list = append(list, map[string]any{"Id": d.id, "Name": d.name, "Type": d.typ, "AwsManaged": d.awsManaged})
		}
		f[folder+"/"+target+".json"] = map[string]any{"Policies": list}
	}
	attach("scps", genRoot, "p-FullAWSAccess", "p-genregion01")
	attach("scps", genOUWork, "p-FullAWSAccess", "p-genservice1")
	attach("scps", genOUProd, "p-FullAWSAccess", "p-genprod0001")
	attach("scps", genOUDev, "p-FullAWSAccess")
	attach("rcps", genRoot, "p-RCPFullAWSAccess", "p-genrcporg1")
	for _, ou := range []string{genOUWork, genOUProd, genOUDev} {
		attach("rcps", ou, "p-RCPFullAWSAccess")
	}
	for _, id := range ids {
		attach("scps", id, "p-FullAWSAccess")
		attach("rcps", id, "p-RCPFullAWSAccess")
	}
}

// writeOrg writes an organization of cfg's accounts, each generated from
// its own seed (cfg.Seed plus its index), to dir.
func writeOrg(dir string, cfg config, accounts int) error {
	ids := make([]string, accounts)
	for i := range ids {
		ids[i] = orgAccountID(i)
	}
	files := orgFiles{}
	files.tree(ids)
	files.policies(ids)
	for i, id := range ids {
		c := cfg
		c.Seed, c.Account = cfg.Seed+uint64(i), id
		c.Org = &orgTrust{ID: genOrgID}
		for _, other := range ids {
			if other != id {
				c.Org.Others = append(c.Org.Others, other)
			}
		}
		files["snapshots/"+id+".json"] = c
	}
	for name, v := range files {
		if c, ok := v.(config); ok {
			v = generate(c) // one account in memory at a time
		}
		if err := writeFile(filepath.Join(dir, name), v); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeJSON(f, v); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// writeJSON prints v as the AWS CLI does: four-space indents, no HTML
// escaping.
func writeJSON(w io.Writer, v any) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return bw.Flush()
}

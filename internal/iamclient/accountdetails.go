package iamclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// AccountDetails is the whole of iam:GetAccountAuthorizationDetails, every
// page joined, in the API's own shape and field names: the shape of the file
// `aws iam get-account-authorization-details` writes, except that policy
// documents stay URL-encoded strings as IAM returns them (the AWS CLI decodes
// them into objects; readers of either must accept both).
type AccountDetails struct {
	UserDetailList  []iamtypes.UserDetail
	GroupDetailList []iamtypes.GroupDetail
	RoleDetailList  []iamtypes.RoleDetail
	Policies        []iamtypes.ManagedPolicyDetail
}

// AccountAuthorizationDetails reads the account's users, groups, roles and
// managed policies with no Filter (every entity type, as the AWS CLI asks by
// default), following IsTruncated/Marker to the last page.
func (c *Client) AccountAuthorizationDetails(ctx context.Context) (*AccountDetails, error) {
	var d AccountDetails
	p := iam.NewGetAccountAuthorizationDetailsPaginator(c.iam, &iam.GetAccountAuthorizationDetailsInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:GetAccountAuthorizationDetails: %w", err)
		}
		d.UserDetailList = append(d.UserDetailList, out.UserDetailList...)
		d.GroupDetailList = append(d.GroupDetailList, out.GroupDetailList...)
		d.RoleDetailList = append(d.RoleDetailList, out.RoleDetailList...)
		d.Policies = append(d.Policies, out.Policies...)
	}
	return &d, nil
}

// JSON renders d as the API's JSON (field names as AWS spells them).
func (d *AccountDetails) JSON() ([]byte, error) { return json.Marshal(d) }

package localaws

import (
	"slices"
)

// The reads Terraform and other tools make before deleting a user, to find
// and remove what would block the delete: MFA devices, SSH public keys,
// signing certificates and service-specific credentials. leash local issues
// none of these (it has no console, CodeCommit or Keyspaces to use them), so
// every existing user has none and each list is empty. The user must still
// exist (NoSuchEntity otherwise), and UserName may be left out to mean the
// calling user, as the IAM API reference has it for all four
// (https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListMFADevices.html,
// API_ListSSHPublicKeys.html, API_ListSigningCertificates.html,
// API_ListServiceSpecificCredentials.html). They are authorized against the
// user like the other reads of a user.

func iamUserReadOperations(ops map[string]operation) {
	ops["ListMFADevices"] = emptyUserReadOperation(func() any {
		return struct {
			MFADevices  []struct{} `xml:"MFADevices>member"`
			IsTruncated bool       `xml:"IsTruncated"`
		}{MFADevices: []struct{}{}}
	})
	ops["ListSSHPublicKeys"] = emptyUserReadOperation(func() any {
		return struct {
			SSHPublicKeys []struct{} `xml:"SSHPublicKeys>member"`
			IsTruncated   bool       `xml:"IsTruncated"`
		}{SSHPublicKeys: []struct{}{}}
	})
	ops["ListSigningCertificates"] = emptyUserReadOperation(func() any {
		return struct {
			Certificates []struct{} `xml:"Certificates>member"`
			IsTruncated  bool       `xml:"IsTruncated"`
		}{Certificates: []struct{}{}}
	})
	ops["ListServiceSpecificCredentials"] = serviceCredentialsOperation(emptyUserReadOperation(noServiceCredentials))
	ops["ListVirtualMFADevices"] = operation{
		readOnly: true,
		// The action has no resource types: only Resource "*" grants it.
		target: onAnyResource,
		run: func(c *call) (any, error) {
			if status, ok := c.q.String("AssignmentStatus"); ok && !slices.Contains(assignmentStatuses, status) {
				return nil, c.q.Invalid("AssignmentStatus", "Member must satisfy enum value set: [Unassigned, Any, Assigned]")
			}
			if _, _, err := paged(c, []struct{}{}); err != nil {
				return nil, err
			}
			return struct {
				VirtualMFADevices []struct{} `xml:"VirtualMFADevices>member"`
				IsTruncated       bool       `xml:"IsTruncated"`
			}{VirtualMFADevices: []struct{}{}}, nil
		},
	}
}

var assignmentStatuses = []string{"Assigned", "Unassigned", "Any"}

// emptyUserReadOperation is a read of a user (UserName, or the caller)
// whose answer is always the empty list result makes.
func emptyUserReadOperation(result func() any) operation {
	return operation{
		readOnly: true,
		target:   onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			if _, err := c.tx.GetUser(name); err != nil {
				return nil, err
			}
			if _, _, err := paged(c, []struct{}{}); err != nil {
				return nil, err
			}
			return result(), nil
		},
	}
}

// serviceCredentialsOperation is ListServiceSpecificCredentials: besides
// one user's credentials it can ask for every user's (AllUsers), which
// cannot be combined with UserName. Every user has none, so that list is
// empty too and needs no user.
func serviceCredentialsOperation(oneUser operation) operation {
	return operation{
		readOnly: true,
		target: func(c *call) (target, error) {
			// Every user's credentials are read as ListUsers reads
			// every user.
			if allUsers, _ := c.flag("AllUsers"); allUsers {
				return target{resource: c.arn("user/")}, nil
			}
			return oneUser.target(c)
		},
		run: func(c *call) (any, error) {
			allUsers, err := c.flag("AllUsers")
			if err != nil {
				return nil, err
			}
			if !allUsers {
				return oneUser.run(c)
			}
			if c.param("UserName") != "" {
				return nil, c.q.Invalid("UserName", "Member must be null when AllUsers is true: ask for one user's credentials or for every user's, not both")
			}
			if _, _, err := paged(c, []struct{}{}); err != nil {
				return nil, err
			}
			return noServiceCredentials(), nil
		},
	}
}

func noServiceCredentials() any {
	return struct {
		ServiceSpecificCredentials []struct{} `xml:"ServiceSpecificCredentials>member"`
		IsTruncated                bool       `xml:"IsTruncated"`
	}{ServiceSpecificCredentials: []struct{}{}}
}

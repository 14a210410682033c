package operator

import (
	leashv1 "leash.dev/leash/api/v1"
)

// FolderPrincipal fills in the mode and principal `leash apply` gives a
// request read from a folder, where no status is kept: the IAM user it
// mints under clusterName (by name, as the account is not known here), or
// the role of an STS request (its ARN, or the name of the role apply
// makes when it names none), or the role apply makes for a Broker request. mode is apply's --mode for requests
// without the leash.dev/mode annotation. It reads the request as apply
// does, so `leash revoke --request -f DIR` finds the principal apply made.
func FolderPrincipal(cr *leashv1.CredentialsRequest, clusterName string, mode leashv1.CredentialsMode) (leashv1.CredentialsMode, string, error) {
	spec, err := awsSpec(cr)
	if err != nil {
		return "", "", err
	}
	p := &Provisioner{cfg: Config{Mode: mode, ClusterName: clusterName}}
	m, err := p.modeOf(cr, spec)
	if err != nil {
		return "", "", err
	}
	switch m {
	case leashv1.ModeMint:
		return m, userName(clusterName, cr.Namespace, cr.Name, string(cr.UID)), nil
	case leashv1.ModeSTS:
		if spec.STSIAMRoleARN == "" { // the role apply makes, by name
			return m, userName(clusterName, cr.Namespace, cr.Name, string(cr.UID)), nil
		}
		return m, spec.STSIAMRoleARN, nil
	case leashv1.ModeBroker: // the role apply makes, by name
		return m, userName(clusterName, cr.Namespace, cr.Name, string(cr.UID)), nil
	}
	return m, "", nil
}

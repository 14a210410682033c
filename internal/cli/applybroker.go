package cli

import (
	"context"
	"fmt"
	"io"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
)

// defaultBrokerUser is the IAM user leash apply makes in the embedded
// endpoint to stand for the credential broker, when a request is in Broker
// mode and no --broker-principal is given: the made roles need a principal
// to trust, and the embedded account has no broker of its own.
const defaultBrokerUser = "leash-broker"

// needsBroker says whether a request of the folder is in Broker mode,
// read as apply reads it.
func needsBroker(requests []*leashv1.CredentialsRequest, cfg operator.Config) bool {
	for _, cr := range requests {
		if mode, _, err := operator.FolderPrincipal(cr, cfg.ClusterName, cfg.Mode); err == nil && mode == leashv1.ModeBroker {
			return true
		}
	}
	return false
}

// brokerUser returns the ARN of the embedded endpoint's broker user,
// making it (with no key and no policy: the roles' trust names it) on the
// first run and saying so on w. It sits at path / with no leash tags, so
// the sweep of minted users never takes it.
func brokerUser(w io.Writer) func(ctx context.Context, c *iamclient.Client) (string, error) {
	return func(ctx context.Context, c *iamclient.Client) (string, error) {
		u, err := c.GetUser(ctx, defaultBrokerUser)
		if err == nil {
			return u.ARN, nil
		}
		if !iamclient.IsNotFound(err) {
			return "", err
		}
		u, err = c.CreateUser(ctx, iamclient.NewUser{Name: defaultBrokerUser, Path: "/"})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(w, "made IAM user %s in the embedded endpoint to stand for the credential broker: the roles of Broker-mode requests trust it (give --broker-principal ARN for another)\n", u.ARN)
		return u.ARN, nil
	}
}

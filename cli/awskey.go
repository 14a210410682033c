package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/aws/aws-sdk-go-v2/aws"

	"leash.dev/leash/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// awsKey is the key that signs calls to AWS or leash local, as every
// command that calls them takes it: the [default] profile of
// credentialsFile when one is given, else AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN. need says which flags need
// the key, for the error when there is none.
func awsKey(credentialsFile string, getenv func(string) string, need string) (aws.CredentialsProvider, error) {
	if credentialsFile != "" {
		key, err := iamclient.KeyFromFile(credentialsFile)
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		if err != nil {
			return nil, &inputerr.Error{Msg: fmt.Sprintf("--credentials-file %s: %v", credentialsFile, err)}
		}
		return key.Provider(), nil
	}
	key, ok := iamclient.KeyFromEnv(getenv)
	if !ok {
		return nil, &inputerr.Error{Msg: need + ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or give --credentials-file FILE (e.g. leash local's leash-data/admin-credentials)"}
	}
	return key.Provider(), nil
}

// awsRegion is the region of AWS_REGION, else of AWS_DEFAULT_REGION; ""
// when neither is set.
func awsRegion(getenv func(string) string) string {
	if region := getenv("AWS_REGION"); region != "" {
		return region
	}
	return getenv("AWS_DEFAULT_REGION")
}

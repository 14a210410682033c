package oidcissuer

import (
	"fmt"
	"path/filepath"
	"time"
)

// APIServerFlags are the kube-apiserver flags that make it this issuer:
// tokens' iss, the signing key, one verifying key file per published key,
// the audiences it accepts itself, and the token lifetime bound pruning
// counts on. Extension of tokens past that bound is turned off, since it
// would let a token outlive its key's publication. dir is made absolute,
// as the API server reads the files from its own working folder.
func APIServerFlags(dir string, is Issuer) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	flags := []string{
		"--service-account-issuer=" + is.URL,
		"--service-account-signing-key-file=" + PrivateKeyFile(dir, is.SigningKey().ID),
	}
	for _, k := range is.Keys {
		flags = append(flags, "--service-account-key-file="+PublicKeyFile(dir, k.ID))
	}
	return append(flags,
		"--api-audiences="+is.URL,
		fmt.Sprintf("--service-account-max-token-expiration=%v", time.Duration(is.MaxTokenLifetime)),
		"--service-account-extend-token-expiration=false",
	)
}

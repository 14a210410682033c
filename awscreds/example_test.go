package awscreds_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"

	"leash.dev/leash/awscreds"
	"leash.dev/leash/credfile"
)

// Example loads a controller's configuration from a key pair in its mounted
// credentials file. In a pod, AWS_SHARED_CREDENTIALS_FILE names the file of
// the mounted Secret and Load needs no options; here the file is written to
// a temporary folder and holds AWS's documented example key, and nothing
// reaches the network or instance metadata.
func Example() {
	dir, err := os.MkdirTemp("", "awscreds-example")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	file := filepath.Join(dir, "credentials")
	secret := credfile.Static("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "")
	if err := os.WriteFile(file, []byte(secret), 0o600); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	cfg, src, err := awscreds.Load(ctx,
		awscreds.WithCredentialsFile(file),
		awscreds.WithProfile("default"),
		awscreds.WithLoadOptions(config.WithRegion("eu-north-1")))
	if err != nil {
		log.Fatal(err) // the Secret is missing, empty or would fall back to the node's role
	}
	// src holds no secret: log it to show which credentials are in use.
	fmt.Println(src.Kind, "from profile", src.Profile)
	fmt.Println("region:", cfg.Region)

	// The key itself stays out of logs; its class says whether it expires.
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("long-term key:", strings.HasPrefix(creds.AccessKeyID, "AKIA"))
	// Output:
	// static key in file from profile default
	// region: eu-north-1
	// long-term key: true
}

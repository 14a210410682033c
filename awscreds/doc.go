// Package awscreds loads a controller's AWS configuration from the
// credentials Secret leash writes, and from nothing else: the mounted file
// named by AWS_SHARED_CREDENTIALS_FILE, holding either a key pair or a
// role_arn with web_identity_token_file. Instance metadata (IMDS) is
// disabled, the credentials are retrieved once at start-up, and Load fails
// if the file is unset, missing, unreadable, empty or keyless, if
// AWS_ACCESS_KEY_ID or another environment key is set, or if the SDK got
// the credentials anywhere else. A controller adopts it in three lines:
//
//	cfg, src, err := awscreds.Load(ctx)
//	if err != nil { log.Fatal(err) } // the Secret is missing, empty or would fall back to the node's role
//	client := ec2.NewFromConfig(cfg) // log src (it holds no secret) to show which source is in use
//
// The profile is $AWS_PROFILE, or default. Environment web-identity
// settings (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE) are ignored: the
// profile in the file is always the one used.
package awscreds

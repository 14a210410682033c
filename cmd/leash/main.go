// Command leash issues least-privilege AWS credentials to Kubernetes
// controllers and answers offline what a policy allows. Run `leash --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// Mozilla's root certificates, used only where the system has none: the
	// operator's image is one static binary with no /etc/ssl, and still
	// reaches IAM and STS over TLS.
	_ "golang.org/x/crypto/x509roots/fallback"

	"leash.dev/leash/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

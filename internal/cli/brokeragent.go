package cli

import (
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/broker/agent"
	"leash.dev/leash/internal/inputerr"
)

func newBrokerAgent() *cobra.Command {
	var o agent.Options
	var caFile, caBase64 string
	const short = "Serve a pod's AWS SDKs their credentials from the leash broker, on loopback"
	cmd := &cobra.Command{
		Use:   "agent --upstream URL (--upstream-ca-file FILE | --upstream-ca BASE64)",
		Short: short,
		Long: long(short, `agent runs in each pod of a CredentialsRequest in Broker mode, as a
sidecar that the admission webhook adds. The pod's AWS SDKs call it as their
container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI): it
forwards each GET /v1/credentials, with the pod's service-account token from
its Authorization header, to the broker at --upstream over TLS, and answers
with the broker's status, Content-Type and body unchanged. It caches nothing.

It listens only on loopback (--listen), since it takes the token in clear
text; the upstream must be https, and its certificate signed by the CA given
with --upstream-ca-file or --upstream-ca (the PEM in base64), the only CA it
trusts for the broker: not the system roots. A call that cannot connect is
tried once more; one that fails answers 502, or 503 when the broker took
longer than --timeout, with JSON {"code","message"}. GET /healthz answers ok.
The token is never logged.

Exit status: 0 after a stop by signal, 2 when it cannot start.`),
		Example: example(
			"leash broker agent --upstream https://leash-broker.leash-system.svc:8443 \\",
			"  --upstream-ca-file /etc/leash/broker-ca.crt",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case caFile != "" && caBase64 != "":
				return &inputerr.Error{Source: "--upstream-ca", Msg: "give the CA once: --upstream-ca-file or --upstream-ca, not both"}
			case caFile != "":
				pem, err := os.ReadFile(caFile)
				if err != nil {
					return &inputerr.Error{Source: "--upstream-ca-file", Msg: err.Error()}
				}
				o.CA = pem
			case caBase64 != "":
				pem, err := agent.CAFromBase64(caBase64)
				if err != nil {
					return err
				}
				o.CA = pem
			}
			log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			return agent.Run(cmd.Context(), o, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", agent.DefaultListen, "loopback `ADDRESS` to serve on (HOST:PORT, HOST a loopback IP)")
	f.StringVar(&o.Upstream, "upstream", "", "the broker Service's https `URL`, such as https://leash-broker.leash-system.svc:8443")
	f.StringVar(&caFile, "upstream-ca-file", "", "`FILE` of the PEM CA certificate that signs the broker's certificate")
	f.StringVar(&caBase64, "upstream-ca", "", "the PEM CA certificate that signs the broker's certificate, in standard `BASE64`")
	f.DurationVar(&o.Timeout, "timeout", agent.DefaultTimeout, "longest `DURATION` to wait for the broker on each call")
	return cmd
}

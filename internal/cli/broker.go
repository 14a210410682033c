package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/spf13/cobra"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/inputerr"
)

func newBroker() *cobra.Command {
	var (
		o                broker.Options
		l                broker.Listen
		kubeconfig       string
		endpoint, region string
	)
	const short = "Serve pods short-lived sessions of their requests' roles"
	cmd := &cobra.Command{
		Use:   "broker",
		Short: short,
		Long: long(short, `broker serves the CredentialsRequests in Broker mode (status.mode Broker): the
operator made each a role trusted only by the broker's own AWS identity, and
the broker hands a pod of a service account the request names a session of
that role, over the AWS container credentials protocol every AWS SDK and the
AWS CLI read (AWS_CONTAINER_CREDENTIALS_FULL_URI and
AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE).

A pod proves who it is with a projected service-account token of audience
broker.leash.dev, bound to the pod. The broker checks it with the TokenReview
API (at most once per token every 5 minutes), checks that the pod still
exists, finds the one request in Broker mode whose spec.serviceAccountNames
names its service account in spec.secretRef.namespace (the pod's
leash.dev/credentials-injected picks among several), refuses a request
carrying leash.dev/revoke, and answers with an sts:AssumeRole session named
after the pod and tagged kubernetes-namespace, kubernetes-service-account,
kubernetes-pod-name, kubernetes-pod-uid and leash-cluster. A session is
cached per pod and role, and replaced when less than 15 minutes or a quarter
of --session-duration (whichever is smaller) is left.

The broker's AWS identity comes from the AWS SDK's default chain (environment,
web identity, shared files, container or instance role); its Kubernetes
identity needs create tokenreviews (ClusterRole system:auth-delegator) and
get, list and watch of pods and credentialsrequests. Plain HTTP is served only
on a loopback address; anywhere else give --tls-cert-file and --tls-key-file.`),
		Example: example(
			"# In a cluster, beside the operator",
			"leash broker --tls-cert-file /tls/tls.crt --tls-key-file /tls/tls.key --cluster-name prod",
			"",
			"# Against leash local, from a workstation (the broker's key in the environment)",
			"AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... leash broker --kubeconfig ~/.kube/config \\",
			"  --endpoint http://127.0.0.1:4566 --listen 127.0.0.1:8443 --cluster-name dev",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := l.Check(); err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			if err := broker.CheckClusterName(o.ClusterName); err != nil {
				return &inputerr.Error{Msg: "--cluster-name: " + err.Error()}
			}
			if err := broker.CheckSessionDuration(o.SessionDuration); err != nil {
				return &inputerr.Error{Msg: "--session-duration: " + err.Error()}
			}
			ctx := cmd.Context()
			logger := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			stsClient, arn, err := brokerSTS(ctx, endpoint, region)
			if err != nil {
				return err
			}
			logger.Info("broker AWS identity: roles of Broker requests must trust it", "arn", arn)
			cfg, err := restConfig(kubeconfig)
			if err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			o.Kube, o.STS, o.Log = cfg, stsClient, logger
			b, err := broker.New(ctx, o)
			if err != nil {
				return err
			}
			return runBroker(ctx, b, l, logger)
		},
	}
	f := cmd.Flags()
	f.StringVar(&kubeconfig, "kubeconfig", "", "`FILE` to reach the API server (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&l.Addr, "listen", ":8443", "`ADDRESS` to serve "+broker.CredentialsPath+", /healthz and /readyz on (e.g. --listen 127.0.0.1:8443)")
	f.StringVar(&l.CertFile, "tls-cert-file", "", "PEM certificate `FILE` to serve TLS with, read again when it changes (e.g. --tls-cert-file /tls/tls.crt)")
	f.StringVar(&l.KeyFile, "tls-key-file", "", "PEM private key `FILE` of --tls-cert-file (e.g. --tls-key-file /tls/tls.key)")
	f.StringVar(&endpoint, "endpoint", "", "`URL` of leash local to call STS at, instead of AWS (e.g. --endpoint http://127.0.0.1:4566)")
	f.StringVar(&region, "region", "", "AWS `REGION` of the STS endpoint (default: $AWS_REGION, else us-east-1)")
	f.StringVar(&o.ClusterName, "cluster-name", "leash", "the operator's --cluster-name `NAME`: the broker assumes only the roles it makes, under /leash/NAME/, and tags every session leash-cluster=NAME (e.g. --cluster-name prod)")
	f.DurationVar(&o.SessionDuration, "session-duration", broker.DefaultSessionDuration, "`DURATION` of each session, 15m to the role's maximum session duration (e.g. --session-duration 30m)")
	cmd.AddCommand(newBrokerAgent())
	return cmd
}

// brokerSTS is an STS client with the broker's own credentials, from the
// SDK's default chain, and the identity they are of.
func brokerSTS(ctx context.Context, endpoint, region string) (*sts.Client, string, error) {
	load := []func(*config.LoadOptions) error{}
	if region != "" {
		load = append(load, config.WithRegion(region))
	}
	if endpoint != "" {
		load = append(load, config.WithBaseEndpoint(endpoint))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, "", fmt.Errorf("the broker's AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := sts.NewFromConfig(cfg)
	who, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return nil, "", fmt.Errorf("the broker's AWS credentials (the SDK's default chain) do not work: sts:GetCallerIdentity: %w", err)
	}
	return client, aws.ToString(who.Arn), nil
}

// runBroker serves b on l while its caches start, until ctx ends.
func runBroker(ctx context.Context, b *broker.Broker, l broker.Listen, logger *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- broker.Serve(ctx, l, b) }()
	start := time.Now()
	started := make(chan error, 1)
	go func() { started <- b.Start(ctx) }()
	select {
	case err := <-served: // could not listen
		return err
	case err := <-started:
		if err != nil {
			cancel()
			return errors.Join(err, <-served)
		}
	}
	logger.Info("broker ready", "listen", l.Addr, "tls", l.CertFile != "", "synced", time.Since(start).Round(time.Millisecond).String())
	return <-served
}

// Package broker is leash's credential broker: it serves pods short-lived
// sessions of the roles leash makes for requests in Broker mode, over the
// AWS container credentials protocol that every current AWS SDK and the
// AWS CLI read. A pod proves who it is with a projected service-account
// token of Audience; the broker checks it with the TokenReview API and
// answers with an AssumeRole session tagged with the pod's namespace,
// service account and name.
package broker

// What a pod and the broker agree on. The admission webhook wires a pod
// with these; the broker and its in-pod agent read them.
const (
	// Audience is the audience of the projected service-account token a
	// pod presents: the broker accepts no other, so a token meant for STS
	// or the API server cannot be replayed to it.
	Audience = "broker.leash.dev"
	// TokenVolume is the pod's projected volume holding that token.
	TokenVolume = "leash-broker-token"
	// TokenDir is where TokenVolume is mounted, read-only, and TokenPath
	// the token file the SDKs read (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE).
	TokenDir  = "/var/run/secrets/leash.dev/broker"
	TokenPath = TokenDir + "/token"
	// TokenExpirationSeconds is the projected token's lifetime; the
	// kubelet refreshes it at 80% of it.
	TokenExpirationSeconds = 3600

	// CredentialsPath is the HTTP path of the credentials, on the broker
	// and on the agent.
	CredentialsPath = "/v1/credentials"
	// AgentPort is the loopback port of the agent in each pod, and
	// AgentURL the credentials URL the pod's SDKs are given
	// (AWS_CONTAINER_CREDENTIALS_FULL_URI): the SDKs accept plain HTTP only
	// to loopback and to the container link-local addresses.
	AgentPort = 9911
	AgentURL  = "http://127.0.0.1:9911" + CredentialsPath

	// The variables the AWS SDKs read for the container credentials
	// provider.
	EnvFullURI   = "AWS_CONTAINER_CREDENTIALS_FULL_URI"
	EnvTokenFile = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"
)

// Session tags on every session the broker issues, named as EKS Pod
// Identity names them, so that a policy written for EKS Pod Identity's
// tags (aws:PrincipalTag/kubernetes-namespace ...) works unchanged, and
// CloudTrail and leash audit name the pod.
const (
	TagNamespace      = "kubernetes-namespace"
	TagServiceAccount = "kubernetes-service-account"
	TagPodName        = "kubernetes-pod-name"
	TagPodUID         = "kubernetes-pod-uid"
	TagCluster        = "leash-cluster"
)

package operator

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/secretowner"
)

// Keys of a credentials Secret, as consumers of the compatible API read them.
const (
	SecretKeyID          = credfile.SecretKeyID
	SecretKeySecret      = credfile.SecretKeySecret
	SecretKeyCredentials = credfile.SecretKeyCredentials
)

// Annotations leash keeps on the Secrets it writes, to remember which keys
// it published: only key IDs and times, never a secret.
const (
	annotationKeyCreated   = "leash.dev/access-key-created"
	annotationPreviousKey  = "leash.dev/previous-access-key-id"
	annotationRetireAt     = "leash.dev/previous-access-key-retire-at"
	annotationRootVersion  = "leash.dev/root-credentials-version"
	annotationManagedByKey = "app.kubernetes.io/managed-by"
)

// newSecret is the Secret of a request, labelled and annotated so that it
// can be found from the request and the request from it.
func newSecret(cr *leashv1.CredentialsRequest, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: cr.Spec.SecretRef.Name, Namespace: cr.Spec.SecretRef.Namespace,
			Labels: map[string]string{leashv1.LabelCredentialsRequest: "true", annotationManagedByKey: "leash"},
			Annotations: map[string]string{
				leashv1.AnnotationCredentialsRequest: cr.Namespace + "/" + cr.Name,
				secretowner.AnnotationRequestUID:     string(cr.UID),
			},
		},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
}

// ownershipMarks are the annotations that tie a Secret to its request,
// which a new Secret is created with before anything else is written.
func ownershipMarks(ann map[string]string) map[string]string {
	return map[string]string{
		leashv1.AnnotationCredentialsRequest: ann[leashv1.AnnotationCredentialsRequest],
		secretowner.AnnotationRequestUID:     ann[secretowner.AnnotationRequestUID],
	}
}

// staticKeyData is a Secret's data for a key pair.
func staticKeyData(key iamclient.AccessKey) map[string][]byte {
	return map[string][]byte{
		SecretKeyID:          []byte(key.ID),
		SecretKeySecret:      []byte(key.Secret.Reveal()),
		SecretKeyCredentials: []byte(credfile.Static(key.ID, key.Secret.Reveal(), key.SessionToken.Reveal())),
	}
}

// ownedBy says whether a Secret is this request's: created for its UID,
// or handed over to it (secretowner).
func ownedBy(s *corev1.Secret, cr *leashv1.CredentialsRequest) bool {
	return secretowner.Of(s, cr) == secretowner.Owned
}

// secretKey reads the key pair a Secret holds: its aws_access_key_id and
// aws_secret_access_key, else the [default] profile of its credentials file.
// problem says what is wrong when it holds none.
func secretKey(s *corev1.Secret) (key iamclient.AccessKey, problem string) {
	id, secret := string(s.Data[SecretKeyID]), string(s.Data[SecretKeySecret])
	if id != "" && secret != "" {
		return iamclient.AccessKey{ID: id, Secret: iamclient.NewSecret(secret)}, ""
	}
	switch {
	case id != "" && secret == "":
		return key, "has " + SecretKeyID + " but " + SecretKeySecret + " is missing or empty; it needs both halves of the key pair"
	case secret != "" && id == "":
		return key, "has " + SecretKeySecret + " but " + SecretKeyID + " is missing or empty; it needs both halves of the key pair"
	}
	raw, ok := s.Data[SecretKeyCredentials]
	if !ok {
		return key, "has neither " + SecretKeyID + "/" + SecretKeySecret + " nor a " + SecretKeyCredentials + " file"
	}
	f, err := credfile.Parse(string(raw))
	if err != nil {
		return key, "its " + SecretKeyCredentials + " file is malformed: " + err.Error()
	}
	if f["default"]["role_arn"] != "" && f["default"]["web_identity_token_file"] != "" {
		return key, "web-identity"
	}
	kid, ksecret, token, ok := f.StaticKey("default")
	if !ok {
		return key, "its " + SecretKeyCredentials + " file has no [default] profile with aws_access_key_id and aws_secret_access_key"
	}
	return iamclient.AccessKey{ID: kid, Secret: iamclient.NewSecret(ksecret), SessionToken: iamclient.NewSecret(token)}, ""
}

// timeAnnotation reads a time written by formatTime; zero when absent.
func timeAnnotation(s *corev1.Secret, key string) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, s.Annotations[key])
	return t
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

package secretowner

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

func TestOf(t *testing.T) {
	cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app", UID: "uid-1"}}
	secret := func(labels, ann map[string]string, keys ...string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "creds", Labels: labels, Annotations: ann}, Data: map[string][]byte{}}
		for _, k := range keys {
			s.Data[k] = []byte("x")
		}
		return s
	}
	leash := map[string]string{"app.kubernetes.io/managed-by": "leash", leashv1.LabelCredentialsRequest: "true"}
	named := map[string]string{leashv1.AnnotationCredentialsRequest: "team-a/app"}
	for _, tc := range []struct {
		name string
		s    *corev1.Secret
		want Claim
	}{
		{"no Secret may be created", nil, Absent},
		{"a Secret marked with the request's UID is the request's", secret(nil, map[string]string{AnnotationRequestUID: "uid-1"}), Owned},
		{"a Secret marked with another UID is not, even with the request's name", secret(leash, map[string]string{AnnotationRequestUID: "uid-0", leashv1.AnnotationCredentialsRequest: "team-a/app"}, "aws_access_key_id"), NotOwned},
		{"a plain Secret is not the request's", secret(nil, nil, "token"), NotOwned},
		{"a Secret handed over by name is the request's", secret(nil, map[string]string{AnnotationHandOver: "team-a/app"}, "token"), Owned},
		{"a Secret handed over to another request is not", secret(nil, map[string]string{AnnotationHandOver: "team-a/other"}), NotOwned},
		{"the name annotation alone, which anyone may write, is not enough", secret(nil, named, "aws_access_key_id"), NotOwned},
		{"an earlier leash's Secret with credential keys only is the request's", secret(leash, named, "aws_access_key_id", "aws_secret_access_key", "credentials"), Owned},
		{"an earlier leash's Secret holding other data is not", secret(leash, named, "aws_access_key_id", "token"), NotOwned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.s, cr); got != tc.want {
				t.Errorf("Of = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNotOwnedMessageSaysHowToHandOver(t *testing.T) {
	cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app", UID: "uid-1"}}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "creds"}}
	msg := NotOwnedMessage(s, cr)
	for _, want := range []string{"Secret team-a/creds", "leash did not create it", "kubectl annotate secret -n team-a creds leash.dev/hand-over-to=team-a/app"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// Package secretowner decides whether a Secret is a CredentialsRequest's to
// write and delete. leash may write Secrets in any namespace it serves, so a
// request must never be a way to overwrite or delete a Secret its author
// could not touch: leash writes only a Secret it created for the request
// (marked with the request's UID, which no other request can have) or one
// that whoever controls it has handed over by name. The operator and the
// admission webhook both ask, and answer alike.
package secretowner

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
)

const (
	// AnnotationRequestUID is set on every Secret leash creates: the UID of
	// the request it was created for. A request deleted and made again has
	// a new UID, so the mark cannot be inherited by name.
	AnnotationRequestUID = "leash.dev/credentials-request-uid"
	// AnnotationHandOver is set on an existing Secret by whoever controls
	// it, to "NAMESPACE/NAME" of the request that may take it over. From
	// then on leash writes the request's credentials into it and deletes it
	// with the request.
	AnnotationHandOver = "leash.dev/hand-over-to"
	// labelManagedBy is set to "leash" on the Secrets leash writes.
	labelManagedBy = "app.kubernetes.io/managed-by"
)

// Claim is a request's right to a Secret.
type Claim int

const (
	// Absent: there is no Secret; leash may create it.
	Absent Claim = iota
	// Owned: leash created it for this request, or it was handed over.
	Owned
	// NotOwned: someone else's Secret; leash must not write or delete it.
	NotOwned
)

// Of is the request's claim to s (nil when there is no Secret).
func Of(s *corev1.Secret, cr *leashv1.CredentialsRequest) Claim {
	switch {
	case s == nil:
		return Absent
	case cr.UID != "" && s.Annotations[AnnotationRequestUID] == string(cr.UID):
		return Owned
	case s.Annotations[AnnotationHandOver] == requestName(cr):
		return Owned
	case earlierLeash(s, cr):
		return Owned
	}
	return NotOwned
}

// earlierLeash recognises a Secret an earlier leash wrote for this request
// before Secrets carried the request's UID: labelled as leash's, annotated
// with the request's name, and holding nothing but credential keys, so that
// no one else's data can be in it.
func earlierLeash(s *corev1.Secret, cr *leashv1.CredentialsRequest) bool {
	if _, marked := s.Annotations[AnnotationRequestUID]; marked {
		return false
	}
	if s.Labels[labelManagedBy] != "leash" || s.Annotations[leashv1.AnnotationCredentialsRequest] != requestName(cr) {
		return false
	}
	credentialKeys := []string{credfile.SecretKeyID, credfile.SecretKeySecret, credfile.SecretKeyCredentials}
	for k := range maps.Keys(s.Data) {
		if !slices.Contains(credentialKeys, k) {
			return false
		}
	}
	return true
}

// NotOwnedMessage says why leash leaves s alone and how its owner can hand
// it over to the request.
func NotOwnedMessage(s *corev1.Secret, cr *leashv1.CredentialsRequest) string {
	why := "leash did not create it"
	if uid := s.Annotations[AnnotationRequestUID]; uid != "" {
		why = fmt.Sprintf("leash created it for another request (UID %s)", uid)
	} else if h := s.Annotations[AnnotationHandOver]; h != "" {
		why = fmt.Sprintf("it is handed over to %s, not to this request", h)
	}
	return fmt.Sprintf("Secret %s/%s of spec.secretRef already exists and %s, so leash neither writes nor deletes it. Name a Secret that does not exist yet, or, if it is meant for this request, have whoever controls it hand it over: kubectl annotate secret -n %s %s %s=%s (leash then writes the credentials into it and deletes it with the request)",
		s.Namespace, s.Name, why, s.Namespace, s.Name, AnnotationHandOver, requestName(cr))
}

func requestName(cr *leashv1.CredentialsRequest) string { return cr.Namespace + "/" + cr.Name }

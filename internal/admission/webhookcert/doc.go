// Package webhookcert keeps the admission webhook's serving certificate
// without cert-manager: a CA and a serving certificate in one Secret in the
// operator's namespace, so that every replica serves the same certificate,
// the CA bundle in the webhook configurations, and renewal before expiry in
// an order that never presents a certificate the API server does not trust.
//
// The Secret (default leash-webhook-tls) holds:
//
//	ca.crt   PEM: the signing CA first, then older CAs until they expire
//	ca.key   PEM: the signing CA's ECDSA P-256 key
//	tls.crt  PEM: the serving certificate, signed by a CA of ca.crt
//	tls.key  PEM: its ECDSA P-256 key
//
// and every webhook of the configurations carries ca.crt as its caBundle.
// The configurations are watched, so that one re-created without it, or
// given a stale one, gets it back at once (watch.go). A setup cert-manager
// keeps stops the webhook and leaves the rest of the operator running
// (stop.go).
package webhookcert

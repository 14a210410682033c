package webhookcert

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"
)

// Keys of the Secret.
const (
	KeyCACert  = "ca.crt"
	KeyCAKey   = "ca.key"
	KeyTLSCert = "tls.crt"
	KeyTLSKey  = "tls.key"
)

// plan is what a sync decided about the Secret's data.
type plan struct {
	// data is the Secret's data after the sync: unchanged unless changed.
	data    map[string][]byte
	changed bool
	// why says, for the log, what was renewed or replaced and why; never
	// any key material.
	why []string
	// bundle is the CA bundle the webhooks must carry: data's ca.crt.
	bundle []byte
	// serving is the certificate to serve, from data.
	serving *tls.Certificate
}

// decide reads the Secret's data and renews what is due or unusable:
//
//   - The signing CA (ca.crt's first certificate, with ca.key) is renewed
//     when CARenewBefore is left, and replaced when it is missing, does not
//     parse, is not a CA or does not match its key. A new CA goes first in
//     ca.crt; the older ones stay until they expire, so that certificates
//     they signed keep working.
//   - The serving certificate is replaced at once when it is missing, does
//     not parse, does not match its key, lacks a name, has expired or
//     chains to no CA in ca.crt. When it is merely due (CertRenewBefore
//     left) it is renewed only by a CA at least one Resync old: every
//     replica puts ca.crt into the CA bundle before it serves, so by then
//     the API server trusts the new CA.
func (o Options) decide(old map[string][]byte, now time.Time) (plan, error) {
	p := plan{data: map[string][]byte{}}
	for k, v := range old {
		p.data[k] = v
	}
	note := func(format string, args ...any) { p.why = append(p.why, fmt.Sprintf(format, args...)) }

	// The CAs, the signing one first, expired ones dropped.
	var cas []*x509.Certificate
	var sign signer
	caProblem := ""
	all, err := parseCerts(old[KeyCACert])
	switch {
	case len(old[KeyCACert]) == 0:
		caProblem = KeyCACert + " is missing"
	case err != nil:
		caProblem = KeyCACert + " " + err.Error()
	}
	for i, c := range all {
		switch {
		case !c.IsCA:
			note("%s's certificate %d (serial %s) is not a CA; dropped", KeyCACert, i, c.SerialNumber)
		case !now.Before(c.NotAfter):
			note("CA serial %s expired at %s; dropped from the bundle", c.SerialNumber, c.NotAfter.UTC().Format(time.RFC3339))
		default:
			cas = append(cas, c)
			continue
		}
		if i == 0 {
			caProblem = "the signing CA (" + KeyCACert + "'s first certificate) is expired or not a CA"
		}
	}
	if caProblem == "" {
		key, err := parseKey(old[KeyCAKey])
		switch {
		case err != nil:
			caProblem = KeyCAKey + " " + err.Error()
		case !key.PublicKey.Equal(cas[0].PublicKey):
			caProblem = KeyCAKey + " does not match " + KeyCACert + "'s first certificate"
		default:
			sign = signer{cert: cas[0], key: key}
		}
	}
	switch {
	case caProblem != "":
		note("new CA: %s", caProblem)
	case sign.cert.NotAfter.Sub(now) <= o.CARenewBefore:
		note("new CA: CA serial %s expires at %s, within %v", sign.cert.SerialNumber, sign.cert.NotAfter.UTC().Format(time.RFC3339), o.CARenewBefore)
	}
	if caProblem != "" || sign.cert.NotAfter.Sub(now) <= o.CARenewBefore {
		ca, err := newCA(now, o.CAValidity)
		if err != nil {
			return plan{}, err
		}
		key, err := encodeKey(ca.key)
		if err != nil {
			return plan{}, err
		}
		sign = ca
		cas = append([]*x509.Certificate{ca.cert}, cas...)
		p.data[KeyCAKey] = key
	}
	p.bundle = encodeCerts(cas)
	if !bytes.Equal(p.bundle, old[KeyCACert]) {
		p.data[KeyCACert] = p.bundle
		if len(p.why) == 0 {
			// Text around the PEM blocks: the Secret holds what the
			// webhooks carry, byte for byte.
			note("%s rewritten as its CAs' PEM alone", KeyCACert)
		}
	}

	// The serving certificate.
	serving, problem := o.checkServing(old, cas, now)
	switch {
	case problem != "":
		note("new serving certificate: %s", problem)
	case serving.Leaf.NotAfter.Sub(now) > o.CertRenewBefore:
		// Not due.
	case now.Before(sign.cert.NotBefore.Add(backdate + o.Resync)):
		// Due, but the signing CA is too new to be trusted everywhere yet:
		// a later resync renews it.
	default:
		note("new serving certificate: serial %s expires at %s, within %v", serving.Leaf.SerialNumber, serving.Leaf.NotAfter.UTC().Format(time.RFC3339), o.CertRenewBefore)
		problem = "due"
	}
	if problem != "" {
		certPEM, keyPEM, err := sign.issue(o, now, o.CertValidity)
		if err != nil {
			return plan{}, err
		}
		p.data[KeyTLSCert], p.data[KeyTLSKey] = certPEM, keyPEM
		if serving, problem = o.checkServing(p.data, cas, now); problem != "" {
			return plan{}, fmt.Errorf("the new serving certificate is unusable: %s", problem)
		}
	}
	p.serving = serving
	p.changed = len(p.why) > 0
	return p, nil
}

// checkServing parses the serving certificate and says what makes it
// unusable, if anything.
func (o Options) checkServing(data map[string][]byte, cas []*x509.Certificate, now time.Time) (*tls.Certificate, string) {
	if len(data[KeyTLSCert]) == 0 || len(data[KeyTLSKey]) == 0 {
		return nil, KeyTLSCert + " or " + KeyTLSKey + " is missing"
	}
	if _, err := parseKey(data[KeyTLSKey]); err != nil {
		return nil, KeyTLSKey + " " + err.Error()
	}
	if _, err := parseCerts(data[KeyTLSCert]); err != nil {
		return nil, KeyTLSCert + " " + err.Error()
	}
	pair, err := tls.X509KeyPair(data[KeyTLSCert], data[KeyTLSKey])
	if err != nil {
		// tls's errors name the mismatch, never the key.
		return nil, KeyTLSKey + " does not match " + KeyTLSCert
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, KeyTLSCert + " does not parse"
		}
		pair.Leaf = leaf
	}
	roots := x509.NewCertPool()
	for _, c := range cas {
		roots.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return nil, fmt.Sprintf("serial %s does not verify against %s: %v", leaf.SerialNumber, KeyCACert, err)
	}
	for _, name := range o.dnsNames() {
		if leaf.VerifyHostname(name) != nil {
			return nil, fmt.Sprintf("serial %s is not valid for %s", leaf.SerialNumber, name)
		}
	}
	for _, ip := range o.ExtraIPs {
		if leaf.VerifyHostname(ip.String()) != nil {
			return nil, fmt.Sprintf("serial %s is not valid for %s", leaf.SerialNumber, ip)
		}
	}
	return &pair, ""
}

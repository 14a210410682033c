// Package awsmanaged is the set of AWS managed policies
// (arn:aws:iam::aws:policy/…) that every account of leash local can read,
// attach and evaluate: each policy's name, path, dates, default version and
// that version's document, as AWS publishes them.
//
// The set is embedded (policies.bin, generated; see generate.go). Only a
// small index is decoded, on first use; a policy's document is inflated
// when asked for, so the 1,500-odd documents never sit in memory together.
package awsmanaged

import (
	"crypto/sha256"
	"encoding/base32"
	"iter"
	"strings"
	"time"
)

// ARNPrefix starts the ARN of every AWS managed policy; the path and the
// name follow.
const ARNPrefix = "arn:aws:iam::aws:policy"

// Policy is one AWS managed policy at its default version. AWS keeps older
// versions too; the set holds only the default one.
type Policy struct {
	// Name is the policy's name, unique in the set regardless of case.
	Name string
	// Path is its path, such as / or /service-role/.
	Path string
	// Version is the number of its default version: DefaultVersionID is
	// "v" and it.
	Version int
	// Created, Updated: when AWS created the policy and last changed its
	// default version. VersionCreated is when that version was created.
	Created, Updated, VersionCreated time.Time

	// arn, id and versionID are computed once, when the index is
	// decoded: listing the set asks for every policy's.
	arn, id, versionID string
	doc                docRef
}

// ARN is the policy's ARN.
func (p Policy) ARN() string { return p.arn }

// DefaultVersionID is the ID of the policy's default version, as IAM names
// it ("v3").
func (p Policy) DefaultVersionID() string { return p.versionID }

// PolicyID is a stable ID in IAM's form (ANPA and 17 characters) derived
// from the ARN. The published data does not carry AWS's own IDs, so these
// differ from the IDs AWS shows; they are the same on every run and
// every machine.
func (p Policy) PolicyID() string { return p.id }

func policyID(arn string) string {
	sum := sha256.Sum256([]byte(arn))
	return "ANPA" + base32.StdEncoding.EncodeToString(sum[:])[:17]
}

// Document returns the default version's policy document: JSON in AWS's key
// order, without insignificant whitespace. It inflates the document from
// the embedded set on each call; callers that evaluate it keep the parsed
// form (leash local's policy cache does).
func (p Policy) Document() string { return inflate(p.doc) }

// Lookup finds the AWS managed policy arn names. An ARN whose path differs
// from the policy's, or an account's own policy, is not found.
func Lookup(arn string) (Policy, bool) {
	rest, ok := strings.CutPrefix(arn, ARNPrefix)
	slash := strings.LastIndexByte(rest, '/')
	if !ok || !strings.HasPrefix(rest, "/") {
		return Policy{}, false
	}
	path, name := rest[:slash+1], rest[slash+1:]
	p, ok := byName(name)
	if !ok || p.Path != path {
		return Policy{}, false
	}
	return p, true
}

// Exists reports whether arn names an AWS managed policy of the set.
func Exists(arn string) bool {
	_, ok := Lookup(arn)
	return ok
}

// All yields every policy in the order IAM lists them: by lower-cased name.
func All() iter.Seq[Policy] {
	return func(yield func(Policy) bool) {
		for _, p := range index().policies {
			if !yield(p) {
				return
			}
		}
	}
}

// Len is the number of policies in the set.
func Len() int { return len(index().policies) }

package oidcissuer

import (
	"fmt"
	"strings"
	"time"
)

// Rotate makes a new signing key: the key set publishes it beside the old
// ones, the old signing key is retired at now and its private half deleted
// (the API server keeps signing with the copy it loaded until it restarts
// with Flags). It returns the new state and the retired key.
func Rotate(dir string, now time.Time) (Issuer, Key, error) {
	is, err := Load(dir)
	if err != nil {
		return Issuer{}, Key{}, err
	}
	// Finish a change cut short before starting another.
	if err := publish(dir, is); err != nil {
		return Issuer{}, Key{}, err
	}
	kid, err := addKey(dir)
	if err != nil {
		return Issuer{}, Key{}, err
	}
	// Whole seconds, rounded up for the retirement, so the prune time
	// printed (RFC 3339, seconds) is never before the real one.
	created, retiredAt := now.UTC().Truncate(time.Second), now.UTC().Add(time.Second-1).Truncate(time.Second)
	retired := is.SigningKey()
	next := Issuer{URL: is.URL, MaxTokenLifetime: is.MaxTokenLifetime}
	for _, k := range is.Keys {
		if k.ID == retired.ID {
			k.RetiredAt = &retiredAt
			retired = k
		}
		next.Keys = append(next.Keys, k)
	}
	next.Keys = append(next.Keys, Key{ID: kid, Created: created})
	if err := next.save(dir); err != nil {
		return Issuer{}, Key{}, err
	}
	return next, retired, publish(dir, next)
}

// TooEarlyError is --prune before a retired key's tokens have all expired.
type TooEarlyError struct {
	Keys []Key
	At   []time.Time
}

func (e *TooEarlyError) Error() string {
	var parts []string
	for i, k := range e.Keys {
		parts = append(parts, fmt.Sprintf("%s may be pruned from %s", k.ID, e.At[i].Format(time.RFC3339)))
	}
	return strings.Join(parts, "; ") + " (retirement plus the max token lifetime, when every token the key signed has expired); run --prune again then, or add --force to refuse those tokens now"
}

// Prune removes the retired keys whose tokens have all expired (retired
// more than the max token lifetime before now), or every retired key with
// force. It removes what it may and returns a *TooEarlyError naming the
// rest, with the state after the removal.
func Prune(dir string, now time.Time, force bool) (Issuer, []Key, error) {
	is, err := Load(dir)
	if err != nil {
		return Issuer{}, nil, err
	}
	if err := publish(dir, is); err != nil {
		return Issuer{}, nil, err
	}
	next := Issuer{URL: is.URL, MaxTokenLifetime: is.MaxTokenLifetime}
	var pruned []Key
	early := &TooEarlyError{}
	for _, k := range is.Keys {
		switch at := is.PruneAt(k); {
		case k.RetiredAt == nil:
			next.Keys = append(next.Keys, k)
		case force || !now.Before(at):
			pruned = append(pruned, k)
		default:
			next.Keys = append(next.Keys, k)
			early.Keys = append(early.Keys, k)
			early.At = append(early.At, at)
		}
	}
	if len(pruned) > 0 {
		if err := next.save(dir); err != nil {
			return Issuer{}, nil, err
		}
		if err := publish(dir, next); err != nil {
			return Issuer{}, nil, err
		}
	}
	if len(early.Keys) > 0 {
		return next, pruned, early
	}
	return next, pruned, nil
}

// Package trail is the investigation over CloudTrail records: it reads them
// from leash local's audit log, from a folder of CloudTrail log files, or
// from the CloudTrail LookupEvents API (AWS's or leash local's), and hands
// the ones a selection keeps to the caller, one audit.Event at a time. Every
// source yields the same record type, so what is done with the records
// (printing them, deriving a policy from them) is written once.
package cloudtrail

import (
	"context"

	"leash.dev/leash/localaws/audit"
)

// Source is where records come from. Events calls fn for every record f
// selects, in the source's order, and stops at fn's first error. A record or
// file a source cannot read is reported through its Skip function and
// skipped; only a failure to reach the source at all is returned.
type Source interface {
	Events(ctx context.Context, f audit.Filter, fn func(*audit.Event) error) error
}

// Skip is told of a line, file or record a source skipped and why.
type Skip func(what string, err error)

// Collect calls fn for every record of src that f selects. It is the one way
// commands read a trail, so that a selection means the same for every
// source and every use.
func Collect(ctx context.Context, src Source, f audit.Filter, fn func(*audit.Event) error) error {
	return src.Events(ctx, f, func(e *audit.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(e)
	})
}

func skip(s Skip, what string, err error) {
	if s != nil {
		s(what, err)
	}
}

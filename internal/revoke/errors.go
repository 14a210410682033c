package revoke

import (
	"errors"
	"fmt"

	"leash.dev/leash/internal/iamclient"
)

// ErrRefused is a revocation leash will not make as asked, or one IAM
// refused: the input was good and the answer is no. leash revoke exits 1 on
// it.
var ErrRefused = errors.New("revocation refused")

// Refusal says why a revocation was not made and what would let it be.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

// Is makes errors.Is(err, ErrRefused) hold.
func (r *Refusal) Is(target error) bool { return target == ErrRefused }

// denied turns IAM's AccessDenied for one call into a Refusal naming the
// action, the resource and the principal that lacks it; other errors pass.
func denied(err error, action, resource, caller string) error {
	if !iamclient.IsAccessDenied(err) {
		return err
	}
	return &Refusal{Msg: fmt.Sprintf("%s on %s was denied to %s: grant it %s on that resource and run again (IAM said: %v)",
		action, resource, caller, action, err)}
}

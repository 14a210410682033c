package broker_test

import (
	"testing"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/workload"
)

// The broker names the operator's and admission's annotations itself, so
// that it imports neither; they must stay the same names.
func TestAnnotationsAreTheirOwners(t *testing.T) {
	if broker.AnnotationRevokeForTest != operator.AnnotationRevoke {
		t.Errorf("revoke annotation %q, the operator's %q", broker.AnnotationRevokeForTest, operator.AnnotationRevoke)
	}
	if broker.AnnotationInjectedForTest != workload.AnnotationCredentialsInjected {
		t.Errorf("injected annotation %q, admission's %q", broker.AnnotationInjectedForTest, workload.AnnotationCredentialsInjected)
	}
}

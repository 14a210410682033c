package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/localaws/audit"
)

// checkPodFlags refuses a --pod that names no pod, --pod beside
// --principal (the pod is the principal), and --broker without --pod.
func checkPodFlags(o auditOptions) error {
	if o.pod == "" {
		if o.broker != "" {
			return &inputerr.Error{Source: "--broker", Msg: "selects who issued a pod's sessions: give --pod NAMESPACE/NAME with it"}
		}
		return nil
	}
	if o.principal != "" {
		return &inputerr.Error{Source: "--pod", Msg: "--pod and --principal both select the caller: give one"}
	}
	if _, _, err := splitPod(o.pod); err != nil {
		return err
	}
	return checkPrincipalARN("--broker", o.broker)
}

// splitPod reads --pod NAMESPACE/NAME.
func splitPod(v string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(v, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", &inputerr.Error{Source: "--pod", Msg: fmt.Sprintf("%q is not NAMESPACE/NAME: give the pod's namespace and name, such as --pod shop/web-0", v)}
	}
	return namespace, name, nil
}

// podTrail reads src once for the pod's sessions, names each on stderr
// (its pod UID tells pods of one name apart), and returns the trail of
// the pod's calls: with --policy its own calls only, since the AssumeRole
// calls that issued its sessions were the broker's.
func podTrail(ctx context.Context, o auditOptions, f audit.Filter, src cloudtrail.Source, stderr io.Writer) (cloudtrail.Source, error) {
	namespace, name, err := splitPod(o.pod)
	if err != nil {
		return nil, err
	}
	pod := cloudtrail.Pod{Namespace: namespace, Name: name, Broker: o.broker}
	t, err := cloudtrail.ForPod(ctx, src, pod, f)
	if err != nil {
		return nil, err
	}
	// The tags and ARNs are the trail writer's words.
	say := func(s string) { fmt.Fprintf(stderr, "leash audit: %s\n", termsafe.Escape(s)) }
	if len(t.Sessions) == 0 {
		by := "by any caller"
		if o.broker != "" {
			by = "by " + o.broker
		}
		say(fmt.Sprintf("no successful AssumeRole %s tagged %s=%s and %s=%s in the trail: no calls of pod %s", by, cloudtrail.TagNamespace, namespace, cloudtrail.TagPodName, name, o.pod))
	}
	for _, s := range t.Sessions {
		uid := s.UID
		if uid == "" {
			uid = "(none tagged)"
		}
		say(fmt.Sprintf("pod %s uid %s: session %s issued %s by %s", o.pod, uid, s.Session, s.At.Format(time.RFC3339), s.By))
	}
	if o.policy {
		return t.Calls(), nil
	}
	return t, nil
}

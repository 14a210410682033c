package apiserver

import "sigs.k8s.io/controller-runtime/pkg/envtest"

// asACluster undoes what envtest changes in kube-apiserver's admission:
// its defaults pass --disable-admission-plugins=ServiceAccount, so that a
// pod needs no ServiceAccount where no kube-controller-manager creates the
// "default" ones. Without that flag the API server runs its default
// admission plugins, as a cluster does; ServiceAccount among them sets a
// pod's serviceAccountName, refuses a pod whose ServiceAccount does not
// exist, and adds the kube-api-access-* projected token volume to every
// pod before webhooks run, which admission code must expect. envtest sets
// no other admission flag (--enable-admission-plugins, or a
// --admission-control-config-file), and signs the tokens with a key it
// makes for each server unless Options.Issuer gives one.
// https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#which-plugins-are-enabled-by-default
func asACluster(args *envtest.Arguments) {
	args.Disable("disable-admission-plugins")
}

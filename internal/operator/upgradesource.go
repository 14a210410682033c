package operator

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
)

// NextRequestSources are where the operator reads the next release's
// CredentialsRequests for its Upgradeable check (upgradecheck.go): a
// folder of manifests (a mounted ConfigMap, an unpacked release) and a
// ConfigMap whose data values are manifests. With neither there is no
// check and no CredentialsUpgradeCheck is written.
type NextRequestSources struct {
	Dir       string
	ConfigMap types.NamespacedName
}

// Enabled says whether a source is named.
func (s NextRequestSources) Enabled() bool { return s.Dir != "" || s.ConfigMap.Name != "" }

// String names the sources as the flags do, for the status and the log.
func (s NextRequestSources) String() string {
	var out []string
	if s.Dir != "" {
		out = append(out, "--next-requests "+s.Dir)
	}
	if s.ConfigMap.Name != "" {
		out = append(out, "--next-requests-configmap "+s.ConfigMap.String())
	}
	return strings.Join(out, " and ")
}

// load reads the next requests: the folder's, then the ConfigMap's (cm;
// nil when it does not exist) key by key in name order. A request named
// twice is refused: which one the upgrade applies is unclear.
func (s NextRequestSources) load(cm *corev1.ConfigMap) ([]*leashv1.CredentialsRequest, error) {
	var out []*leashv1.CredentialsRequest
	seen := map[string]string{}
	add := func(where string, crs []*leashv1.CredentialsRequest) error {
		for _, cr := range crs {
			key := cr.Namespace + "/" + cr.Name
			if prev, ok := seen[key]; ok {
				return &inputerr.Error{Field: where, Msg: fmt.Sprintf("CredentialsRequest %s is also in %s; give each next request once", key, prev)}
			}
			seen[key] = where
			out = append(out, cr)
		}
		return nil
	}
	if s.Dir != "" {
		crs, err := ReadRequests(s.Dir)
		if err != nil {
			return nil, err
		}
		if err := add("--next-requests "+s.Dir, crs); err != nil {
			return nil, err
		}
	}
	if s.ConfigMap.Name == "" {
		return out, nil
	}
	if cm == nil {
		return nil, fmt.Errorf("ConfigMap %s (--next-requests-configmap) does not exist; create it with the next release's CredentialsRequest manifests as its values (kubectl create configmap -n %s %s --from-file=DIR)", s.ConfigMap, s.ConfigMap.Namespace, s.ConfigMap.Name)
	}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	before := len(out)
	for _, k := range keys {
		where := fmt.Sprintf("ConfigMap %s key %s", s.ConfigMap, k)
		crs, err := ParseRequests(where, []byte(cm.Data[k]))
		if err != nil {
			return nil, err
		}
		if err := add(where, crs); err != nil {
			return nil, err
		}
	}
	if len(out) == before {
		return nil, &inputerr.Error{Field: "ConfigMap " + s.ConfigMap.String(), Msg: "holds no CredentialsRequest manifest (apiVersion cloudcredential.openshift.io/v1, kind CredentialsRequest) in its data values; put the next release's manifests there"}
	}
	return out, nil
}

package credfile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Modes of a credentials file or Secret, as Inspect reports them.
const (
	ModeStatic      = "static keys"
	ModeTemporary   = "temporary"
	ModeWebIdentity = "web identity"
	ModeEmpty       = "empty"
	ModeMalformed   = "malformed"
)

// Classes of an access key ID, by its documented prefix.
const (
	KeyIDLongTerm  = "long-term (AKIA)"
	KeyIDTemporary = "temporary (ASIA)"
	KeyIDUnknown   = "unknown"
)

// Keys of a credentials Secret, as consumers of the compatible API read
// them; SecretKeySessionToken is the optional token of a temporary key.
const (
	SecretKeyID           = "aws_access_key_id"
	SecretKeySecret       = "aws_secret_access_key"
	SecretKeySessionToken = "aws_session_token"
	SecretKeyCredentials  = "credentials"
)

// Report says what kind of credentials a file or Secret holds. It carries
// names only: never a key ID, secret or token, so it is safe to print.
type Report struct {
	// Mode is one of the Mode constants; any problem makes it ModeMalformed.
	Mode string `json:"mode"`
	// Profiles are a file's profile names, sorted.
	Profiles []string `json:"profiles,omitempty"`
	// Keys are the setting names of the profile classified (a file) or the
	// Secret's keys, sorted.
	Keys []string `json:"keys"`
	// KeyIDClass is the access key ID's prefix class, when there is a key ID.
	KeyIDClass string `json:"keyIDClass,omitempty"`
	// Problems say why the credentials are not usable.
	Problems []string `json:"problems,omitempty"`
	// Credentials is the report on a Secret's credentials file.
	Credentials *Report `json:"credentials,omitempty"`
}

// Usable says whether the credentials can sign requests: static, temporary
// or web identity, with no problem.
func (r Report) Usable() bool {
	switch r.Mode {
	case ModeStatic, ModeTemporary, ModeWebIdentity:
		return len(r.Problems) == 0
	}
	return false
}

// ClassifyKeyID is the class of an access key ID by its prefix.
func ClassifyKeyID(id string) string {
	switch {
	case strings.HasPrefix(id, "AKIA"):
		return KeyIDLongTerm
	case strings.HasPrefix(id, "ASIA"):
		return KeyIDTemporary
	}
	return KeyIDUnknown
}

// Inspect classifies the text of a shared-credentials file by its [default]
// profile (or its only profile).
func Inspect(data string) Report {
	f, err := Parse(data)
	if err != nil {
		return Report{Mode: ModeMalformed, Keys: []string{}, Problems: []string{err.Error()}}
	}
	r := Report{Keys: []string{}}
	for name := range f {
		r.Profiles = append(r.Profiles, name)
	}
	slices.Sort(r.Profiles)
	profile := "default"
	if f[profile] == nil && len(f) == 1 {
		profile = r.Profiles[0]
	}
	switch {
	case len(f) == 0:
		r.Mode = ModeEmpty
		return r
	case f[profile] == nil:
		r.Mode = ModeMalformed
		r.Problems = []string{"no [default] profile, which the SDKs read unless AWS_PROFILE names another"}
		return r
	}
	p := f[profile]
	for k := range p {
		r.Keys = append(r.Keys, k)
	}
	slices.Sort(r.Keys)
	r.classify(p[SecretKeyID], p[SecretKeySecret], p[SecretKeySessionToken], "")
	if r.Mode == ModeEmpty && (p["role_arn"] != "" || p["web_identity_token_file"] != "") {
		switch {
		case p["role_arn"] == "":
			r.problem("web_identity_token_file without role_arn")
		case p["web_identity_token_file"] == "":
			r.problem("role_arn without web_identity_token_file (or source_profile, which leash does not use)")
		default:
			r.Mode = ModeWebIdentity
		}
	}
	return r
}

// classify sets the mode and key ID class from a key pair and token, where
// the names of the settings are prefixed with where (such as "data.").
func (r *Report) classify(id, secret, token, where string) {
	if id != "" {
		r.KeyIDClass = ClassifyKeyID(id)
	}
	switch {
	case id == "" && secret == "" && token == "":
		r.Mode = ModeEmpty
	case id == "" && secret == "":
		r.problem(where + SecretKeySessionToken + " without a key pair")
	case secret == "":
		r.problem(where + SecretKeyID + " without " + where + SecretKeySecret + "; a key needs both halves")
	case id == "":
		r.problem(where + SecretKeySecret + " without " + where + SecretKeyID + "; a key needs both halves")
	case token != "":
		r.Mode = ModeTemporary
		if r.KeyIDClass == KeyIDLongTerm {
			r.problem("a session token with a long-term (AKIA) key ID; only temporary (ASIA) keys take one")
		}
	default:
		r.Mode = ModeStatic
		if r.KeyIDClass == KeyIDTemporary {
			r.problem("a temporary (ASIA) key ID without " + where + SecretKeySessionToken + "; AWS rejects it without its token")
		}
	}
}

func (r *Report) problem(msg string) {
	r.Mode = ModeMalformed
	r.Problems = append(r.Problems, msg)
}

// secretManifest is the part of a Secret manifest InspectSecret reads.
type secretManifest struct {
	Kind       string            `json:"kind"`
	Data       map[string]string `json:"data"`
	StringData map[string]string `json:"stringData"`
}

// ErrNotSecret is InspectSecret's error for a document of another kind.
var ErrNotSecret = errors.New("not a Secret manifest")

// InspectSecret classifies a Secret manifest (YAML or JSON) by its keys
// aws_access_key_id, aws_secret_access_key and aws_session_token, and the
// credentials file in its credentials key. stringData wins over data, as
// the API server merges them. An error means the document is not a Secret.
func InspectSecret(manifest []byte) (Report, error) {
	var m secretManifest
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		return Report{}, fmt.Errorf("not a YAML or JSON manifest: %w", err)
	}
	if m.Kind != "Secret" {
		return Report{}, fmt.Errorf("%w: its kind is %q", ErrNotSecret, m.Kind)
	}
	r := Report{Keys: []string{}}
	values := map[string]string{}
	for k, v := range m.Data {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			// The decoder's error names a byte offset, never the value.
			r.Problems = append(r.Problems, fmt.Sprintf("data.%s is not base64: %v", k, err))
			continue
		}
		values[k] = string(b)
	}
	for k, v := range m.StringData {
		values[k] = v
	}
	for k := range values {
		r.Keys = append(r.Keys, k)
	}
	slices.Sort(r.Keys)
	id := strings.TrimSpace(values[SecretKeyID])
	r.classify(id, strings.TrimSpace(values[SecretKeySecret]), strings.TrimSpace(values[SecretKeySessionToken]), "")
	if text, ok := values[SecretKeyCredentials]; ok {
		file := Inspect(text)
		r.Credentials = &file
		for _, p := range file.Problems {
			r.problem("credentials file: " + p)
		}
		if r.Mode == ModeEmpty {
			r.Mode, r.KeyIDClass = file.Mode, file.KeyIDClass
		}
		if f, err := Parse(text); err == nil && id != "" {
			if fid := f["default"][SecretKeyID]; fid != "" && fid != id {
				r.problem(SecretKeyID + " and the credentials file's [default] " + SecretKeyID + " differ; consumers reading one or the other get different keys")
			}
		}
	}
	if len(r.Problems) > 0 {
		r.Mode = ModeMalformed
	}
	return r, nil
}

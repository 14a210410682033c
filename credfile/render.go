// Package credfile is the shared-credentials file format the AWS SDKs and
// CLI read ([default] profile, key = value lines).
package credfile

import "strings"

// Profile is one profile's settings, in the order they are written.
type Profile struct {
	Name     string
	Settings [][2]string
}

// Render writes profiles in the shared-credentials format.
func Render(profiles ...Profile) string {
	var b strings.Builder
	for i, p := range profiles {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + p.Name + "]\n")
		for _, kv := range p.Settings {
			b.WriteString(kv[0] + " = " + kv[1] + "\n")
		}
	}
	return b.String()
}

// Static is a [default] profile with a long-term or temporary key.
func Static(keyID, secret, sessionToken string) string {
	p := Profile{Name: "default", Settings: [][2]string{
		{"aws_access_key_id", keyID},
		{"aws_secret_access_key", secret},
	}}
	if sessionToken != "" {
		p.Settings = append(p.Settings, [2]string{"aws_session_token", sessionToken})
	}
	return Render(p)
}

// WebIdentity is a [default] profile that assumes roleARN with the token in
// tokenFile, calling STS in the pod's own region.
func WebIdentity(roleARN, tokenFile string) string {
	return Render(Profile{Name: "default", Settings: [][2]string{
		{"role_arn", roleARN},
		{"web_identity_token_file", tokenFile},
		{"sts_regional_endpoints", "regional"},
	}})
}

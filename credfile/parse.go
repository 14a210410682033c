package credfile

import (
	"bufio"
	"fmt"
	"strings"
)

// File is a parsed shared-credentials or config file: profile name to its
// settings. Keys are lower-cased, as the SDKs read them.
type File map[string]map[string]string

// Parse reads the INI format; an error names the line.
func Parse(data string) (File, error) {
	f := File{}
	var current map[string]string
	sc := bufio.NewScanner(strings.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("line %d: a profile header must end with ']', as in [default]", n)
			}
			name := strings.TrimSpace(strings.TrimPrefix(line[1:len(line)-1], "profile "))
			if name == "" {
				return nil, fmt.Errorf("line %d: empty profile name", n)
			}
			if f[name] == nil {
				f[name] = map[string]string{}
			}
			current = f[name]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: expected key = value or [profile]", n)
		}
		if current == nil {
			return nil, fmt.Errorf("line %d: setting before the first [profile] header", n)
		}
		current[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return f, sc.Err()
}

// StaticKey is the key pair of a profile, if it has both halves.
func (f File) StaticKey(profile string) (id, secret, token string, ok bool) {
	p := f[profile]
	id, secret = p["aws_access_key_id"], p["aws_secret_access_key"]
	return id, secret, p["aws_session_token"], id != "" && secret != ""
}

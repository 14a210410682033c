package broker

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// STS's RoleSessionName: 2 to 64 characters of [\w+=,.@-].
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html#API_AssumeRole_RequestParameters
func TestSessionName(t *testing.T) {
	long := strings.Repeat("a", 60) + "-abcdefgh"
	for _, tc := range []struct{ name, pod, want string }{
		{"a pod name is the session name", "app-7d9f8-x2x9z", "app-7d9f8-x2x9z"},
		{"dots, which pod names may hold, are allowed", "app.v2-0", "app.v2-0"},
		{"a name past 64 characters is cut to 64", long, long[:64]},
		{"a one-character name is padded to STS's minimum of 2", "a", "a-"},
		{"characters STS does not allow become -", "a/b c:d", "a-b-c-d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sessionName(tc.pod)
			if got != tc.want {
				t.Errorf("sessionName(%q) = %q, want %q", tc.pod, got, tc.want)
			}
			if len(got) < 2 || len(got) > 64 || notSessionName.MatchString(got) {
				t.Errorf("%q is not a RoleSessionName STS accepts", got)
			}
		})
	}
}

func TestRefreshBefore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration time.Duration
		want     time.Duration
	}{
		{"an hour's session is replaced with 15 minutes left", time.Hour, 15 * time.Minute},
		{"a longer session is replaced with 15 minutes left", 12 * time.Hour, 15 * time.Minute},
		{"STS's shortest session, 15 minutes, is replaced with a quarter left", 15 * time.Minute, 225 * time.Second},
		{"a 30-minute session is replaced with a quarter left", 30 * time.Minute, 450 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refreshBefore(tc.duration); got != tc.want {
				t.Errorf("refreshBefore(%v) = %v, want %v", tc.duration, got, tc.want)
			}
		})
	}
}

func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(payload)) + ".c2ln"
}

func TestTokenClaims(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		exp         int64
		pod         string
	}{
		{"exp and the bound pod are read", jwt(`{"exp":1800000000,"kubernetes.io":{"namespace":"apps","pod":{"name":"app-1","uid":"u"}}}`), 1800000000, "apps/app-1"},
		{"a token bound to no pod names none", jwt(`{"exp":1800000000,"kubernetes.io":{"namespace":"apps"}}`), 1800000000, ""},
		{"a token without exp has none", jwt(`{"sub":"x"}`), 0, ""},
		{"a negative exp is none", jwt(`{"exp":-5}`), 0, ""},
		{"a fractional exp is none", jwt(`{"exp":1.5}`), 0, ""},
		{"two parts are not a JWT", "a.b", 0, ""},
		{"a payload that is not base64url is nothing", "a.!!!.c", 0, ""},
		{"a payload that is not JSON is nothing", jwt(`not json`), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tokenClaims(tc.token)
			var exp int64
			if !c.exp.IsZero() {
				exp = c.exp.Unix()
			}
			if exp != tc.exp || c.pod != tc.pod {
				t.Errorf("tokenClaims = exp %d pod %q, want exp %d pod %q", exp, c.pod, tc.exp, tc.pod)
			}
		})
	}
}

func FuzzTokenClaims(f *testing.F) {
	f.Add(jwt(`{"exp":1800000000,"kubernetes.io":{"namespace":"apps","pod":{"name":"app-1"}}}`))
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		c := tokenClaims(token)
		if !c.exp.IsZero() && c.exp.Unix() <= 0 {
			t.Errorf("exp %v from %q", c.exp, token)
		}
		if c.pod != "" && !strings.Contains(c.pod, "/") {
			t.Errorf("pod %q from %q", c.pod, token)
		}
	})
}

// The SDKs send the token file's content as the Authorization header.
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html
func TestBearer(t *testing.T) {
	for _, tc := range []struct{ name, header, want string }{
		{"the token as the SDKs send it", "eyJ.a.b", "eyJ.a.b"},
		{"a token file's trailing newline is dropped", "eyJ.a.b\n", "eyJ.a.b"},
		{"a Bearer prefix is accepted", "Bearer eyJ.a.b", "eyJ.a.b"},
		{"in any case", "bearer eyJ.a.b", "eyJ.a.b"},
		{"Bearer alone is no token", "Bearer ", ""},
		{"no header is no token", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bearer(tc.header); got != tc.want {
				t.Errorf("bearer(%q) = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
}

func TestListenCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Listen
		want string // in the error; empty for none
	}{
		{"TLS on every address", Listen{Addr: ":8443", CertFile: "c", KeyFile: "k"}, ""},
		{"plain HTTP on 127.0.0.1", Listen{Addr: "127.0.0.1:8443"}, ""},
		{"plain HTTP on ::1", Listen{Addr: "[::1]:8443"}, ""},
		{"plain HTTP on localhost", Listen{Addr: "localhost:8443"}, ""},
		{"plain HTTP on every address is refused, naming the TLS flags", Listen{Addr: ":8443"}, "give --tls-cert-file and --tls-key-file"},
		{"plain HTTP on a pod address is refused", Listen{Addr: "10.0.0.5:8443"}, "plain HTTP beyond this machine"},
		{"a certificate without its key is refused", Listen{Addr: ":8443", CertFile: "c"}, "give both --tls-cert-file and --tls-key-file"},
		{"an address without a port is refused", Listen{Addr: "8443"}, "--listen \"8443\" is not HOST:PORT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.l.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check() = %v, want %q", err, tc.want)
			}
		})
	}
}

// STS's DurationSeconds and Tag value limits.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
// https://docs.aws.amazon.com/STS/latest/APIReference/API_Tag.html
func TestOptionChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"an hour's session", CheckSessionDuration(time.Hour), true},
		{"15 minutes, STS's minimum", CheckSessionDuration(15 * time.Minute), true},
		{"below 15 minutes is refused", CheckSessionDuration(14 * time.Minute), false},
		{"above 12 hours is refused", CheckSessionDuration(13 * time.Hour), false},
		{"a fraction of a second is refused", CheckSessionDuration(time.Hour + time.Millisecond), false},
		{"a cluster name of letters, digits and -", CheckClusterName("prod-eu-1"), true},
		{"an empty cluster name is refused", CheckClusterName(""), false},
		{"a cluster name with a character tags refuse", CheckClusterName("prod;eu"), false},
		{"a cluster name past 256 characters is refused", CheckClusterName(strings.Repeat("a", 257)), false},
		{"a cluster name of 256 characters, some of several bytes, is accepted", CheckClusterName(strings.Repeat("é", 256)), true},
		{"a cluster name of 257 characters of several bytes is refused", CheckClusterName(strings.Repeat("é", 257)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.err == nil) != tc.ok {
				t.Errorf("err = %v, want ok %v", tc.err, tc.ok)
			}
		})
	}
}

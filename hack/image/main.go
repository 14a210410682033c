// Command image writes leash's container image without a container engine:
// one archive per platform, each holding a single layer with the static
// binary at /leash, run as a numeric non-root user with entrypoint
// `/leash operator`. Each archive is an OCI image layout (oci-layout,
// index.json, blobs/sha256/...) that also carries Docker's manifest.json, as
// `docker save` has written since Docker 25, so that `docker load`,
// `kind load image-archive` (containerd's import), `skopeo` and `crane`
// all read it. The same inputs give the same bytes: every time in the
// archive is the commit's.
//
//	go run ./hack/image -version v0.3.0 -revision SHA -created RFC3339 \
//	    -out dist linux/amd64=dist/leash-linux-amd64 linux/arm64=dist/leash-linux-arm64
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	var (
		o       options
		created string
	)
	flag.StringVar(&o.repo, "repo", "leash", "image repository the archive tags (such as ghcr.io/example/leash)")
	flag.StringVar(&o.version, "version", "", "release version: the tag and the version label")
	flag.StringVar(&o.revision, "revision", "", "commit the binary was built from: the revision label")
	flag.StringVar(&o.source, "source", "", "URL of the source repository: the source label")
	flag.StringVar(&created, "created", "", "RFC 3339 time of the commit: the image's and every file's time")
	out := flag.String("out", "dist", "folder the archives are written to")
	flag.Parse()
	if err := run(o, created, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(2)
	}
}

func run(o options, created, out string, binaries []string) error {
	if o.version == "" || o.revision == "" {
		return fmt.Errorf("-version and -revision are required (hack/image.sh sets them from git)")
	}
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		return fmt.Errorf("-created %q: give an RFC 3339 time, such as the commit's (git log -1 --format=%%cI)", created)
	}
	o.created = t.UTC()
	o.source = withoutUserInfo(o.source)
	if len(binaries) == 0 {
		return fmt.Errorf("give OS/ARCH=BINARY for each platform, such as linux/amd64=dist/leash-linux-amd64")
	}
	for _, arg := range binaries {
		platform, bin, ok := strings.Cut(arg, "=")
		osName, arch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 || osName != "linux" {
			return fmt.Errorf("%q: give linux/ARCH=BINARY (images are for linux)", arg)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		name := filepath.Join(out, fmt.Sprintf("leash-image-%s-%s-%s.tar", tagOf(o.version), osName, arch))
		if err := writeArchive(name, o, arch, data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintln(os.Stderr, "wrote", name, "as", o.repo+":"+tagOf(o.version))
	}
	return nil
}

// withoutUserInfo drops a user and password from a source URL (a remote
// cloned with a token has one), which must never reach an image label.
func withoutUserInfo(source string) string {
	u, err := url.Parse(source)
	if err != nil || u.User == nil {
		return source
	}
	u.User = nil
	return u.String()
}

// tagOf makes a version a valid image tag: letters, digits, '_', '.' and
// '-', at most 128 characters (git describe's '+' is not allowed).
func tagOf(version string) string {
	t := []byte(version)
	for i, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			t[i] = '-'
		}
	}
	if len(t) > 128 {
		t = t[:128]
	}
	return string(t)
}

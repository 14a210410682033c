// Package buildinfo says which leash this binary is: the version a release
// stamps into it, and the commit and Go version the Go toolchain records in
// every binary built from a clone (runtime/debug.ReadBuildInfo).
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set by release builds:
// -ldflags "-X leash.dev/leash/internal/buildinfo.version=v0.3.0".
var version string

// Info is what a binary knows of its build.
type Info struct {
	// Version is the release version; "(devel)" when the binary was built
	// from a clone without one.
	Version string `json:"version"`
	// Commit is the commit the binary was built from, with Modified set
	// when the work tree had changes; empty when the toolchain recorded none
	// (go run, or a build outside a clone).
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commitTime,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the toolchain's version; Platform is GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read reads the binary's build information.
func Read() Info {
	i := Info{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if i.Version == "" {
			i.Version = bi.Main.Version // set by go install module@version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Commit = s.Value
			case "vcs.time":
				i.Time = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if i.Version == "" {
		i.Version = "(devel)"
	}
	return i
}

// String is the one line `leash --version` prints.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "leash %s", i.Version)
	if i.Commit != "" {
		fmt.Fprintf(&b, " commit %s", i.Commit)
		if i.Modified {
			b.WriteString(" (modified)")
		}
	}
	fmt.Fprintf(&b, " %s %s", i.Go, i.Platform)
	return b.String()
}

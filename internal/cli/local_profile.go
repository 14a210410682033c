package cli

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfileFlag is leash local's hidden --cpuprofile: bench/load's
// two-process measurement profiles the server itself with it, which the
// load generator's own profile cannot show. Hidden, since it is for
// measuring leash, not for using it.
const cpuProfileFlag = "cpuprofile"

func addCPUProfileFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, cpuProfileFlag, "", "write a CPU profile of the whole run to `FILE`, for benchmarks")
	_ = cmd.Flags().MarkHidden(cpuProfileFlag) // the flag was defined on the line above
}

// startCPUProfile starts a CPU profile into path and returns what stops it
// and closes the file; with no path it does nothing.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", cpuProfileFlag, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("--%s: %w", cpuProfileFlag, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

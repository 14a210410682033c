package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestEveryCommandHasSummaryDescriptionAndExamples(t *testing.T) {
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		// cobra's own help command is not ours to document.
		if cmd.Name() == "help" {
			return
		}
		t.Run(cmd.CommandPath(), func(t *testing.T) {
			if cmd.Short == "" || strings.Contains(cmd.Short, "\n") {
				t.Errorf("Short must be one line, got %q", cmd.Short)
			}
			if !strings.HasPrefix(cmd.Long, cmd.Short+".\n\n") {
				t.Errorf("Long must start with the summary, since --help shows only Long")
			}
			if !strings.Contains(cmd.Example, cmd.CommandPath()) {
				t.Errorf("Example must show %q in use, got %q", cmd.CommandPath(), cmd.Example)
			}
		})
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRoot())
}

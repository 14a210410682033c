package cloudtrail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"leash.dev/leash/localaws/audit"
)

// LocalLog is leash local's audit log in its data folder.
type LocalLog struct {
	// Dir is the folder given to leash local --data.
	Dir string
	// Skip is told of each line that is not a record (nil ignores them).
	Skip Skip
}

// Events reads the log from the start.
func (l LocalLog) Events(_ context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	path := filepath.Join(l.Dir, audit.FileName)
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("no audit log in %s (%w): is it the folder given to leash local --data?", l.Dir, err)
	}
	defer func() { _ = file.Close() }()
	bad, err := audit.Read(file, f, fn)
	for _, b := range bad {
		skip(l.Skip, fmt.Sprintf("%s line %d", path, b.Line), b.Err)
	}
	return err
}

package cloudtrail

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"leash.dev/leash/localaws/audit"
)

// Folder is a folder of CloudTrail log files, as CloudTrail delivers them to
// S3 (AWSLogs/ACCOUNT/CloudTrail/REGION/YYYY/MM/DD/*.json.gz) or in any other
// layout: every .json and .json.gz file under Root holding {"Records":[…]}.
// Digest files (under CloudTrail-Digest) hold no records and are passed over.
type Folder struct {
	Root string
	// Skip is told of each file that cannot be read (nil ignores them).
	Skip Skip
}

// errStop carries fn's error out of the walk untouched.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// Events reads the files in lexical order of their paths, which in
// CloudTrail's layout is by region, then by time. Records are decoded one at
// a time, so a file of any size is never held whole. A file that is not a
// CloudTrail log is reported and skipped; records read from it before the
// fault are kept.
func (d Folder) Events(ctx context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	info, err := os.Stat(d.Root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", d.Root)
	}
	err = filepath.WalkDir(d.Root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			skip(d.Skip, path, err)
			return nil
		}
		if entry.IsDir() {
			if entry.Name() == "CloudTrail-Digest" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".json") && !strings.HasSuffix(path, ".json.gz") {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := readFile(path, f, fn); err != nil {
			var stop errStop
			if errors.As(err, &stop) {
				return stop
			}
			skip(d.Skip, path, err)
		}
		return nil
	})
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	return err
}

// readFile streams one log file's records; fn's error comes back as errStop.
func readFile(path string, f audit.Filter, fn func(*audit.Event) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = file.Close() }()
	var r io.Reader = file
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(file)
		if err != nil {
			return err
		}
		defer func() { _ = gz.Close() }()
		r = gz
	}
	return readRecords(json.NewDecoder(r), f, fn)
}

// readRecords walks {"Records":[…], …}, decoding each record on its own.
func readRecords(dec *json.Decoder, f audit.Filter, fn func(*audit.Event) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("not a CloudTrail log file ({\"Records\":[…]}): %w", err)
	}
	found := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key != "Records" {
			var skipped json.RawMessage
			if err := dec.Decode(&skipped); err != nil {
				return err
			}
			continue
		}
		found = true
		if err := expectDelim(dec, '['); err != nil {
			return fmt.Errorf(`the "Records" value: %w`, err)
		}
		for n := 0; dec.More(); n++ {
			var e audit.Event
			if err := dec.Decode(&e); err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			if f.Match(&e) {
				if err := fn(&e); err != nil {
					return errStop{err}
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	if !found {
		return errors.New(`not a CloudTrail log file: no "Records" list`)
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("found %v where %q was expected", tok, want)
	}
	return nil
}

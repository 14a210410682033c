package trail

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/localaws/audit"
)

func readFixture(t *testing.T, root, principal string) []*audit.Event {
	var out []*audit.Event
	prefix := "arn:aws:sts::111122223333:assumed-role/ci-deploy/"
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.Contains(p, ".json") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		var r io.Reader = f
		if strings.HasSuffix(p, ".gz") {
			if r, err = gzip.NewReader(f); err != nil {
				return err
			}
		}
		var recs struct{ Records []*audit.Event }
		if err := json.NewDecoder(r).Decode(&recs); err != nil {
			return err
		}
		for _, e := range recs.Records {
			if strings.HasPrefix(e.UserIdentity.ARN, prefix) {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = principal
	return out
}

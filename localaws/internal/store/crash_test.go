package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

// The crash test re-runs this test binary as a child that writes to a store
// until it is killed. These variables tell the child what to do.
const (
	crashChildStore = "LEASH_STORE_CRASH_CHILD_STORE"
	crashChildStart = "LEASH_STORE_CRASH_CHILD_START"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildStore); path != "" {
		start, _ := strconv.Atoi(os.Getenv(crashChildStart))
		if err := writeUntilKilled(path, start); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashRecord is what write i creates in one transaction: a user with an
// inline policy, a key and an attached managed policy, a session, and a tag
// on the previous user, so that every commit both adds and rewrites records.
func crashDocument(i int) string {
	// About 1.5 KB, so that records spill over pages and pages split.
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Sid":"W%d","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket-%d/%s"}]}`,
		i, i, strings.Repeat("p", 1400))
}

func crashUser(i int) string { return fmt.Sprintf("user-%06d", i) }

func crashWrite(tx *store.Tx, i int) (keyID string, err error) {
	u := crashUser(i)
	if _, err := tx.CreateUser(store.User{Name: u, Path: "/crash/", Tags: store.Tags{{"write", strconv.Itoa(i)}}}); err != nil {
		return "", err
	}
	if _, err := tx.PutUserPolicy(u, "inline", crashDocument(i)); err != nil {
		return "", err
	}
	k, err := tx.CreateAccessKey(u)
	if err != nil {
		return "", err
	}
	p, err := tx.CreatePolicy(store.ManagedPolicy{Name: "policy-" + strconv.Itoa(i)}, crashDocument(i))
	if err != nil {
		return "", err
	}
	if _, err := tx.AttachUserPolicy(u, p.ARN); err != nil {
		return "", err
	}
	if _, err := tx.CreateSession(store.Session{UserName: u}, time.Hour); err != nil {
		return "", err
	}
	if i > 0 {
		if _, err := tx.Tag(store.TaggedUser, crashUser(i-1), store.Tags{{"next", strconv.Itoa(i)}}); err != nil && !strings.Contains(err.Error(), "cannot be found") {
			return "", err
		}
	}
	return k.AccessKeyID, nil
}

// writeUntilKilled is the child: it commits write after write and prints
// "committed I KEYID" only after Update has returned, that is after bbolt
// has synced the commit.
func writeUntilKilled(path string, start int) error {
	s, err := store.Open(path, store.Options{AccountID: testAccount, LockTimeout: 10 * time.Second})
	if err != nil {
		return err
	}
	for i := start; ; i++ {
		var keyID string
		err := s.Update(context.Background(), func(tx *store.Tx) error {
			var err error
			keyID, err = crashWrite(tx, i)
			return err
		})
		if err != nil {
			return err
		}
		fmt.Printf("committed %d %s\n", i, keyID)
	}
}

// TestKillDuringWritesLosesNoCommit kills a writing process with SIGKILL,
// several times, and checks after each that every write it reported as
// committed is there and whole, that no write is there in part, and that
// bbolt finds the file consistent.
func TestKillDuringWritesLosesNoCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leash.db")
	committed := map[int]string{} // write → key ID, over all rounds
	next := 0
	for round := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildStore+"="+path, crashChildStart+"="+strconv.Itoa(next))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Let it commit a varying number of writes, then kill it a varying
		// time later, somewhere in the middle of the next ones.
		killAfter := 10 + 5*round
		delay := time.Duration(round) * 700 * time.Microsecond
		seen, killed := 0, false
		for line := range lines {
			var i int
			var keyID string
			if _, err := fmt.Sscanf(line, "committed %d %s", &i, &keyID); err != nil {
				t.Fatalf("child said %q", line)
			}
			committed[i] = keyID
			next = max(next, i+1)
			if seen++; seen == killAfter {
				time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
				killed = true
			}
		}
		err = cmd.Wait()
		if !killed {
			t.Fatalf("round %d: the child stopped by itself after %d writes: %v", round, seen, err)
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, want killed by SIGKILL", round, cmd.ProcessState)
		}
		reported := next
		next = checkAfterCrash(t, path, committed, next)
		t.Logf("round %d: killed %v after write %d was reported; %d writes committed in all; committed but not reported: %d",
			round, delay, killAfter, len(committed), next-reported)
	}
}

// checkAfterCrash reopens the store and checks it against the writes the
// child reported. One more write can be in the store than were reported, if
// the kill came between its commit and its report; it must then be whole too,
// and it joins committed. It returns the index of the next write.
func checkAfterCrash(t *testing.T, path string, committed map[int]string, next int) int {
	t.Helper()
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer closeStore(t, s)
	if err := s.Check(); err != nil {
		t.Fatalf("bbolt check after kill: %v", err)
	}
	view(t, s, func(tx *store.Tx) error {
		for i, keyID := range committed {
			checkWriteWhole(t, tx, i, keyID)
		}
		users, err := tx.ListUsers("/crash/", store.Page{MaxItems: 1000})
		if err != nil {
			return err
		}
		inFlight := next
		for _, u := range users.Items {
			i, _ := strconv.Atoi(strings.TrimPrefix(u.Name, "user-"))
			if _, reported := committed[i]; reported {
				continue
			}
			if i != inFlight {
				t.Errorf("write %d is in the store but was neither reported nor the one in flight (%d)", i, inFlight)
				continue
			}
			keys, err := tx.ListAccessKeys(u.Name)
			if err != nil || len(keys) != 1 {
				t.Fatalf("unreported write %d: keys %v, %v", i, keys, err)
			}
			checkWriteWhole(t, tx, i, keys[0].AccessKeyID)
			committed[i] = keys[0].AccessKeyID
			next = i + 1
		}
		if len(users.Items) != len(committed) {
			t.Errorf("%d users for %d committed writes", len(users.Items), len(committed))
		}
		return nil
	})
	return next
}

func checkWriteWhole(t *testing.T, tx *store.Tx, i int, keyID string) {
	t.Helper()
	u, err := tx.GetUser(crashUser(i))
	if err != nil {
		t.Errorf("write %d: %v", i, err)
		return
	}
	if p, ok := u.InlinePolicy("inline"); !ok || p.Document != crashDocument(i) {
		t.Errorf("write %d: inline policy missing or changed", i)
	}
	if v, _ := u.Tags.Get("write"); v != strconv.Itoa(i) {
		t.Errorf("write %d: tags %v", i, u.Tags)
	}
	policyARN := "arn:aws:iam::" + testAccount + ":policy/policy-" + strconv.Itoa(i)
	if len(u.AttachedPolicies) != 1 || u.AttachedPolicies[0] != policyARN {
		t.Errorf("write %d: attached %v", i, u.AttachedPolicies)
	}
	if d, err := tx.PolicyDocument(policyARN); err != nil || d != crashDocument(i) {
		t.Errorf("write %d: managed policy document: %v", i, err)
	}
	if p, err := tx.GetPolicy(policyARN); err != nil || p.AttachmentCount != 1 {
		t.Errorf("write %d: managed policy %+v, %v", i, p, err)
	}
	c, err := tx.LookupCredential(keyID)
	if err != nil || c.UserName != u.Name || len(c.SecretAccessKey.Reveal()) != 40 {
		t.Errorf("write %d: key %s: %+v, %v", i, keyID, c, err)
	}
}

package cloudtrail

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/audit"
)

// TestTablePrintsRowsAsTheyCome: the table does not hold every row until the
// last record is read; a batch of rows is printed as soon as it is full, so a
// long trail starts printing at once.
func TestTablePrintsRowsAsTheyCome(t *testing.T) {
	var b bytes.Buffer
	p, err := NewPrinter(&b, "table")
	if err != nil {
		t.Fatal(err)
	}
	p.wait = time.Hour // only the batch flushes here, however slow the machine
	e := &audit.Event{EventTime: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), EventSource: "iam.amazonaws.com", EventName: "GetUser"}
	for i := 0; i < tableBatch+1; i++ {
		if err := p.Print(e); err != nil {
			t.Fatal(err)
		}
	}
	// Before Flush, the first batch and the header are out; the last row waits.
	if got := strings.Count(b.String(), "iam:GetUser"); got != tableBatch || !strings.HasPrefix(b.String(), "TIME ") {
		t.Errorf("before the last record: %d rows printed, want %d after the header\n%s", got, tableBatch, b.String())
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "iam:GetUser"); got != tableBatch+1 {
		t.Errorf("after Flush: %d rows, want %d", got, tableBatch+1)
	}
}

// TestTableRowWaitsAtMostTheWait: a row held back is printed once a later
// row comes a wait after it (a slow source shows what it has), while the
// time before the first record, however long, splits nothing.
func TestTableRowWaitsAtMostTheWait(t *testing.T) {
	var b bytes.Buffer
	p, err := NewPrinter(&b, "table")
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }
	e := &audit.Event{EventTime: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), EventSource: "iam.amazonaws.com", EventName: "GetUser"}
	clock = clock.Add(time.Hour) // reading the files before the first record
	for i := 0; i < 3; i++ {
		if err := p.Print(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Count(b.String(), "iam:GetUser"); got != 0 {
		t.Fatalf("%d rows printed before any row waited: the time before the first record split the batch\n%s", got, b.String())
	}
	clock = clock.Add(tableWait)
	if err := p.Print(e); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "iam:GetUser"); got != 4 {
		t.Errorf("%d rows printed after the first waited %v, want all 4\n%s", got, tableWait, b.String())
	}
}

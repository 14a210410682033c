package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedFileIsCurrent pins that the checked-in Region list is what
// the SDK version go.mod pins has: moving the SDK without running
// `go generate ./localaws/internal/region` fails here.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../localaws/internal/region/regions_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("localaws/internal/region/regions_gen.go is not what the pinned SDK's partitions.json gives: run `go generate ./localaws/internal/region`")
	}
}

// TestPartitionKeepsOnlyRegions pins that a partition's pseudo-Regions
// (aws-global) are left out and that an unknown partition is an error.
func TestPartitionKeepsOnlyRegions(t *testing.T) {
	data := []byte(`{"partitions":[{"id":"aws","regionRegex":"^(us|eu)\\-\\w+\\-\\d+$",` +
		`"regions":{"aws-global":{},"us-east-1":{},"eu-west-1":{}}}]}`)
	r, err := partition(data, "aws")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Regions; len(got) != 2 || got[0] != "eu-west-1" || got[1] != "us-east-1" {
		t.Errorf("regions %v, want [eu-west-1 us-east-1]", got)
	}
	if _, err := partition(data, "aws-cn"); err == nil {
		t.Error("a partition the table lacks gave no error")
	}
}

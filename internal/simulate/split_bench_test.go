package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkSplit times the reader's splitting alone, over 2,000 requests
// as JSON Lines, each with an identity policy and an SCP.
func BenchmarkSplit(b *testing.B) {
	var buf bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&buf, `{"principal": "arn:aws:iam::111122223333:user/u-%d", "action": "s3:GetObject", "resource": "arn:aws:s3:::bucket-%d/key", "identityPolicies": [{"name": "p", "document": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:List*"], "Resource": "arn:aws:s3:::bucket-%d/*", "Condition": {"StringEquals": {"aws:RequestedRegion": "eu-west-1"}}}]}}], "scps": [[{"name": "FullAWSAccess", "document": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}}]]}`+"\n", i, i, i)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		s := splitter{br: bufio.NewReaderSize(bytes.NewReader(buf.Bytes()), 64<<10), line: 1}
		for {
			if _, err := s.peek(); err != nil {
				break
			}
			if _, _, err := s.value(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

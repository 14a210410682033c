package sigv4

import (
	"testing"
	"time"
)

// BenchmarkVerify measures the two requests leash sees most: an IAM call
// signed in its header by the SDK's client (seven signed headers, with a
// session token) and a presigned STS GetCallerIdentity URL. Verify must
// stay cheap: a load test drives thousands of requests a second through it
// on two cores.
func BenchmarkVerify(b *testing.B) {
	temporary := key{id: "ASIAIOSFODNN7EXAMPLE", secret: Secret{SecretAccessKey: exampleSecret, SessionToken: vectorToken}}
	sdkShaped := func(tb testing.TB, k key) signed {
		r := formPost(tb, "iam.amazonaws.com", iamBody)
		r.Header.Set("Amz-Sdk-Invocation-Id", "d781363a-35d4-4dcd-ae52-a3b5c216d161")
		r.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
		r.Header.Set("User-Agent", "aws-sdk-go-v2/1.48.0 ua/2.1 os/linux lang/go#1.26.8 api/iam#1.65.0")
		return signHeader(tb, r, k, "iam", "us-east-1", signTime)
	}
	for _, bc := range []struct {
		name  string
		build func(testing.TB, key) signed
	}{
		{"header-signed IAM POST", sdkShaped},
		{"presigned STS URL", stsPresigned(15 * time.Minute)},
	} {
		s := bc.build(b, temporary)
		lookup := lookupOf(temporary)
		if _, err := Verify(s.r, s.body, signTime, lookup); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Verify(s.r, s.body, signTime, lookup); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+" in parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := Verify(s.r, s.body, signTime, lookup); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

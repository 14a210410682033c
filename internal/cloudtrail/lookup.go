package cloudtrail

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	cloudtrailtypes "github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"

	"leash.dev/leash/localaws/audit"
)

// Lookup is the CloudTrail LookupEvents API of AWS or of leash local: the
// last 90 days of management events of one region (on AWS; leash local
// serves its whole audit log).
type Lookup struct {
	Client *cloudtrail.Client
	// Skip is told of each event whose record cannot be read (nil ignores
	// them).
	Skip Skip
}

// LookupConfig says where LookupEvents is and who calls it.
type LookupConfig struct {
	// Endpoint is leash local's URL; empty means AWS.
	Endpoint string
	// Region is the region whose events are read; empty means us-east-1.
	Region      string
	Credentials aws.CredentialsProvider
}

// NewLookup returns a Lookup for cfg. LookupEvents allows two requests a
// second per account and region; the client retries throttled requests with
// backoff for up to ten attempts rather than failing the investigation.
func NewLookup(cfg LookupConfig) Lookup {
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	client := cloudtrail.New(cloudtrail.Options{
		Region:      region,
		Credentials: cfg.Credentials,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 10
			o.MaxBackoff = 10 * time.Second
		}),
	}, func(o *cloudtrail.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})
	return Lookup{Client: client}
}

// Events pages through LookupEvents, newest first, asking the API only for
// the time window and the event name (LookupEvents takes one attribute);
// the selection is applied to each event's record.
func (l Lookup) Events(ctx context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	in := &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(50)}
	if f.EventName != "" {
		in.LookupAttributes = []cloudtrailtypes.LookupAttribute{{AttributeKey: cloudtrailtypes.LookupAttributeKeyEventName, AttributeValue: aws.String(f.EventName)}}
	}
	if !f.Since.IsZero() {
		in.StartTime = aws.Time(f.Since)
	}
	if !f.Until.IsZero() {
		in.EndTime = aws.Time(f.Until)
	}
	pages := cloudtrail.NewLookupEventsPaginator(l.Client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("CloudTrail LookupEvents: %w", err)
		}
		for _, ev := range page.Events {
			var e audit.Event
			if err := json.Unmarshal([]byte(aws.ToString(ev.CloudTrailEvent)), &e); err != nil {
				skip(l.Skip, "event "+aws.ToString(ev.EventId), err)
				continue
			}
			if f.Match(&e) {
				if err := fn(&e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

package store

import "encoding/base64"

// Page selects one page of a List call, as IAM's Marker and MaxItems do.
type Page struct {
	// Marker is the Marker of the previous Listing; "" starts at the first item.
	Marker string
	// MaxItems is the most items to return: 1 to 1000, and 0 means IAM's
	// default of 100.
	MaxItems int
}

// Listing is one page of a List call, in order of name without case.
type Listing[T any] struct {
	Items []T
	// Marker is "" on the last page. Otherwise there are more items (IAM's
	// IsTruncated) and Marker, passed in the next Page, continues after Items.
	Marker string
}

const (
	defaultMaxItems = 100
	maxMaxItems     = 1000
)

// list pages through bucket in key order, keeping the records keep accepts
// (all when keep is nil).
func list[T any](tx *Tx, bucket string, page Page, keep func(*T) bool) (Listing[T], error) {
	limit := page.MaxItems
	switch {
	case limit == 0:
		limit = defaultMaxItems
	case limit < 1 || limit > maxMaxItems:
		return Listing[T]{}, invalid("maxItems", itoa(limit), "Member must have value between 1 and 1000")
	}
	c := tx.bucket(bucket).Cursor()
	k, v := c.First()
	if page.Marker != "" {
		start, err := base64.RawURLEncoding.DecodeString(page.Marker)
		if err != nil || len(start) == 0 {
			return Listing[T]{}, refuse(InvalidInput, "Invalid Marker.")
		}
		k, v = c.Seek(start)
	}
	var out Listing[T]
	for ; k != nil; k, v = c.Next() {
		var item T
		if err := tx.decodeRecord(bucket, k, v, &item); err != nil {
			return Listing[T]{}, err
		}
		if keep != nil && !keep(&item) {
			continue
		}
		if len(out.Items) == limit {
			out.Marker = base64.RawURLEncoding.EncodeToString(k)
			break
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

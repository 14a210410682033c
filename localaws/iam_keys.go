package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

type accessKeyShape struct {
	UserName        string          `xml:"UserName"`
	AccessKeyID     string          `xml:"AccessKeyId"`
	Status          string          `xml:"Status"`
	SecretAccessKey string          `xml:"SecretAccessKey,omitempty"`
	CreateDate      query.Timestamp `xml:"CreateDate"`
}

// lastUsedShape is IAM's AccessKeyLastUsed.
type lastUsedShape struct {
	LastUsedDate query.Timestamp `xml:"LastUsedDate"`
	ServiceName  string          `xml:"ServiceName"`
	Region       string          `xml:"Region"`
}

// accessKeyOf is a key's metadata, without its secret.
func accessKeyOf(k store.AccessKey) accessKeyShape {
	return accessKeyShape{UserName: k.UserName, AccessKeyID: k.AccessKeyID, Status: string(k.Status), CreateDate: query.Timestamp(k.CreateDate)}
}

func iamAccessKeyOperations(ops map[string]operation) {
	ops["CreateAccessKey"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			k, err := c.tx.CreateAccessKey(name)
			if err != nil {
				return nil, err
			}
			// The one response that carries a secret, as IAM's does.
			shape := accessKeyOf(k)
			shape.SecretAccessKey = k.SecretAccessKey.Reveal()
			return struct {
				AccessKey accessKeyShape `xml:"AccessKey"`
			}{shape}, nil
		},
	}
	ops["ListAccessKeys"] = operation{
		readOnly: true,
		target:   onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			keys, err := c.tx.ListAccessKeys(name)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, keys)
			if err != nil {
				return nil, err
			}
			out := struct {
				AccessKeyMetadata []accessKeyShape `xml:"AccessKeyMetadata>member"`
				IsTruncated       bool             `xml:"IsTruncated"`
				Marker            string           `xml:"Marker,omitempty"`
			}{AccessKeyMetadata: []accessKeyShape{}, IsTruncated: marker != "", Marker: marker}
			for _, k := range page {
				out.AccessKeyMetadata = append(out.AccessKeyMetadata, accessKeyOf(k))
			}
			return out, nil
		},
	}
	ops["UpdateAccessKey"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			id, err := c.required("AccessKeyId")
			if err != nil {
				return nil, err
			}
			status, err := c.required("Status")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.UpdateAccessKey(name, id, store.KeyStatus(status))
			return nil, err
		},
	}
	ops["DeleteAccessKey"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			id, err := c.required("AccessKeyId")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteAccessKey(name, id)
		},
	}
	ops["GetAccessKeyLastUsed"] = operation{
		readOnly: true,
		// Authorized against the key's owner. An unknown key is authorized
		// against "*", so that only a caller who may ask about every user
		// learns that the key does not exist.
		target: func(c *call) (target, error) {
			id, err := c.required("AccessKeyId")
			if err != nil {
				return target{}, err
			}
			k, err := c.tx.GetAccessKey(id)
			if err != nil {
				return target{resource: "*"}, nil
			}
			return c.userSubject(k.UserName).target(c, nil)
		},
		run: func(c *call) (any, error) {
			id, err := c.required("AccessKeyId")
			if err != nil {
				return nil, err
			}
			k, err := c.tx.GetAccessKey(id)
			if err != nil {
				return nil, err
			}
			// IAM answers N/A for a key that has never signed a request.
			used := lastUsedShape{query.Timestamp(k.LastUsed.Date), k.LastUsed.ServiceName, k.LastUsed.Region}
			if used.ServiceName == "" {
				used.ServiceName = "N/A"
			}
			if used.Region == "" {
				used.Region = "N/A"
			}
			return struct {
				UserName          string        `xml:"UserName"`
				AccessKeyLastUsed lastUsedShape `xml:"AccessKeyLastUsed"`
			}{k.UserName, used}, nil
		},
	}
}

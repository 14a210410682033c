package localaws

import (
	"leash.dev/leash/localaws/query"
)

type accessKeyShape struct {
	UserName        string          `xml:"UserName"`
	AccessKeyID     string          `xml:"AccessKeyId"`
	Status          string          `xml:"Status"`
	SecretAccessKey string          `xml:"SecretAccessKey,omitempty"`
	CreateDate      query.Timestamp `xml:"CreateDate"`
}

func iamAccessKeyOperations(ops map[string]operation) {
	ops["CreateAccessKey"] = operation{
		target: userTarget,
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
			return struct {
				AccessKey accessKeyShape `xml:"AccessKey"`
			}{accessKeyShape{UserName: k.UserName, AccessKeyID: k.AccessKeyID, Status: string(k.Status),
				SecretAccessKey: k.SecretAccessKey.Reveal(), CreateDate: query.Timestamp(k.CreateDate)}}, nil
		},
	}
	ops["ListAccessKeys"] = operation{
		readOnly: true,
		target:   userTarget,
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			keys, err := c.tx.ListAccessKeys(name)
			if err != nil {
				return nil, err
			}
			out := struct {
				AccessKeyMetadata []accessKeyShape `xml:"AccessKeyMetadata>member"`
				IsTruncated       bool             `xml:"IsTruncated"`
			}{AccessKeyMetadata: []accessKeyShape{}}
			for _, k := range keys {
				out.AccessKeyMetadata = append(out.AccessKeyMetadata, accessKeyShape{UserName: k.UserName, AccessKeyID: k.AccessKeyID, Status: string(k.Status), CreateDate: query.Timestamp(k.CreateDate)})
			}
			return out, nil
		},
	}
}

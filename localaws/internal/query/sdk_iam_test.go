package query_test

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws/internal/query"
)

// The result shapes below are declared as a handler would declare them;
// user, createUserResult and listUsersResult are in response_test.go.

type getUserPolicyResult struct {
	UserName       string `xml:"UserName"`
	PolicyName     string `xml:"PolicyName"`
	PolicyDocument string `xml:"PolicyDocument"`
}

type listUserTagsResult struct {
	Tags        []query.Tag `xml:"Tags>member"`
	IsTruncated bool        `xml:"IsTruncated"`
}

type accessKey struct {
	UserName        string          `xml:"UserName"`
	AccessKeyID     string          `xml:"AccessKeyId"`
	Status          string          `xml:"Status"`
	SecretAccessKey string          `xml:"SecretAccessKey"`
	CreateDate      query.Timestamp `xml:"CreateDate"`
}

type createAccessKeyResult struct {
	AccessKey accessKey `xml:"AccessKey"`
}

type createOpenIDConnectProviderResult struct {
	OpenIDConnectProviderArn string `xml:"OpenIDConnectProviderArn"`
}

// A policy with every character the encodings disagree on: space, plus,
// ampersand, equals, percent, quotes, a newline and non-ASCII.
const policy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject",` +
	`"Resource":"arn:aws:s3:::b/a b+c&d=e%f*","Condition":{"StringEquals":{"aws:PrincipalTag/team":"é"}}}]}` + "\n"

func TestIAMClientCreateUser(t *testing.T) {
	e := newEndpoint(t)
	tagged := alice()
	tagged.Tags = query.OptionalList[query.Tag]{{Key: "team", Value: "a&b <c>"}, {Key: "env", Value: ""}}
	e.answer("CreateUser", createUserResult{User: tagged})

	out, err := e.iam().CreateUser(context.Background(), &iam.CreateUserInput{
		UserName: aws.String("alice"),
		Path:     aws.String("/"),
		Tags:     []types.Tag{{Key: aws.String("team"), Value: aws.String("a&b <c>")}, {Key: aws.String("env"), Value: aws.String("")}},
	})
	if err != nil {
		t.Fatal(err)
	}

	req, requestID := e.last()
	if name, err := req.Required("UserName"); err != nil || name != "alice" {
		t.Errorf("parsed UserName = %q, %v", name, err)
	}
	if tags, err := req.Tags("Tags"); err != nil || !reflect.DeepEqual(tags, []query.Tag(tagged.Tags)) {
		t.Errorf("parsed Tags = %#v, %v; want %#v", tags, err, tagged.Tags)
	}

	u := out.User
	got := []string{aws.ToString(u.UserName), aws.ToString(u.UserId), aws.ToString(u.Arn), aws.ToString(u.Path)}
	if want := []string{"alice", "AIDAEXAMPLEALICE00001", "arn:aws:iam::123456789012:user/alice", "/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("User = %v; want %v", got, want)
	}
	if u.CreateDate == nil || !u.CreateDate.Equal(created) {
		t.Errorf("CreateDate = %v; want %v", u.CreateDate, created)
	}
	if u.PasswordLastUsed != nil {
		t.Errorf("PasswordLastUsed = %v; want none, as a zero Timestamp writes none", u.PasswordLastUsed)
	}
	var gotTags []query.Tag
	for _, tag := range u.Tags {
		gotTags = append(gotTags, query.Tag{Key: aws.ToString(tag.Key), Value: aws.ToString(tag.Value)})
	}
	if !reflect.DeepEqual(gotTags, []query.Tag(tagged.Tags)) {
		t.Errorf("decoded Tags = %#v; want %#v", gotTags, tagged.Tags)
	}
	if id, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); id != requestID {
		t.Errorf("request ID = %q; want %q", id, requestID)
	}
}

func TestIAMClientListUsersPages(t *testing.T) {
	e := newEndpoint(t)
	bob := alice()
	bob.UserName, bob.UserID, bob.Arn = "bob", "AIDAEXAMPLEBOB0000002", "arn:aws:iam::123456789012:user/bob"
	bob.PasswordLastUsed = query.Timestamp(created.Add(time.Hour))
	e.answer("ListUsers", listUsersResult{Users: []user{alice(), bob}, IsTruncated: true, Marker: "page-2"})

	out, err := e.iam().ListUsers(context.Background(), &iam.ListUsersInput{MaxItems: aws.Int32(2), Marker: aws.String("page-1")})
	if err != nil {
		t.Fatal(err)
	}

	req, _ := e.last()
	if n, ok, err := req.Int("MaxItems", 1, 1000); n != 2 || !ok || err != nil {
		t.Errorf("parsed MaxItems = %d, %v, %v; want 2", n, ok, err)
	}
	if m, _ := req.String("Marker"); m != "page-1" {
		t.Errorf("parsed Marker = %q; want page-1", m)
	}

	if len(out.Users) != 2 || aws.ToString(out.Users[0].UserName) != "alice" || aws.ToString(out.Users[1].UserName) != "bob" {
		t.Fatalf("Users = %+v; want alice and bob", out.Users)
	}
	if plu := out.Users[1].PasswordLastUsed; plu == nil || !plu.Equal(created.Add(time.Hour)) {
		t.Errorf("bob's PasswordLastUsed = %v", plu)
	}
	if !out.IsTruncated || aws.ToString(out.Marker) != "page-2" {
		t.Errorf("IsTruncated, Marker = %v, %q; want true, page-2", out.IsTruncated, aws.ToString(out.Marker))
	}
}

func TestIAMClientListUsersWithNoUsersGetsAnEmptyList(t *testing.T) {
	e := newEndpoint(t)
	e.answer("ListUsers", listUsersResult{})
	out, err := e.iam().ListUsers(context.Background(), &iam.ListUsersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Users == nil || len(out.Users) != 0 || out.IsTruncated || out.Marker != nil {
		t.Errorf("Users, IsTruncated, Marker = %#v, %v, %v; want an empty list, false, none", out.Users, out.IsTruncated, out.Marker)
	}
}

func TestIAMClientPutAndGetUserPolicy(t *testing.T) {
	e := newEndpoint(t)
	e.answer("PutUserPolicy", nil)
	e.answer("GetUserPolicy", getUserPolicyResult{UserName: "alice", PolicyName: "read", PolicyDocument: query.PolicyDocument(policy)})
	client := e.iam()

	_, err := client.PutUserPolicy(context.Background(), &iam.PutUserPolicyInput{
		UserName: aws.String("alice"), PolicyName: aws.String("read"), PolicyDocument: aws.String(policy),
	})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := e.last()
	if doc, err := req.Required("PolicyDocument"); err != nil || doc != policy {
		t.Errorf("parsed PolicyDocument = %q, %v; want %q", doc, err, policy)
	}

	out, err := client.GetUserPolicy(context.Background(), &iam.GetUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("read")})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK hands the document over URL-encoded, as IAM sends it; the
	// user decodes it.
	encoded := aws.ToString(out.PolicyDocument)
	if encoded != query.PolicyDocument(policy) {
		t.Errorf("PolicyDocument = %q; want it URL-encoded", encoded)
	}
	if doc, err := url.QueryUnescape(encoded); err != nil || doc != policy {
		t.Errorf("decoded PolicyDocument = %q, %v; want %q", doc, err, policy)
	}
}

func TestIAMClientListUserTags(t *testing.T) {
	e := newEndpoint(t)
	tags := []query.Tag{{Key: "team", Value: "payments"}, {Key: "cost-center", Value: "42"}}
	e.answer("ListUserTags", listUserTagsResult{Tags: tags})
	out, err := e.iam().ListUserTags(context.Background(), &iam.ListUserTagsInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatal(err)
	}
	var got []query.Tag
	for _, tag := range out.Tags {
		got = append(got, query.Tag{Key: aws.ToString(tag.Key), Value: aws.ToString(tag.Value)})
	}
	if !reflect.DeepEqual(got, tags) || out.IsTruncated {
		t.Errorf("Tags, IsTruncated = %v, %v; want %v, false", got, out.IsTruncated, tags)
	}
}

func TestIAMClientCreateAccessKey(t *testing.T) {
	e := newEndpoint(t)
	e.answer("CreateAccessKey", createAccessKeyResult{AccessKey: accessKey{
		UserName: "alice", AccessKeyID: "AKIAEXAMPLEALICE0001", Status: "Active",
		SecretAccessKey: "secret/with+special=chars", CreateDate: query.Timestamp(created),
	}})
	out, err := e.iam().CreateAccessKey(context.Background(), &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatal(err)
	}
	k := out.AccessKey
	got := []string{aws.ToString(k.UserName), aws.ToString(k.AccessKeyId), string(k.Status), aws.ToString(k.SecretAccessKey)}
	if want := []string{"alice", "AKIAEXAMPLEALICE0001", "Active", "secret/with+special=chars"}; !reflect.DeepEqual(got, want) {
		t.Errorf("AccessKey = %v; want %v", got, want)
	}
	if k.Status != types.StatusTypeActive || k.CreateDate == nil || !k.CreateDate.Equal(created) {
		t.Errorf("Status, CreateDate = %v, %v", k.Status, k.CreateDate)
	}
}

func TestIAMClientDeleteUserHasNoResult(t *testing.T) {
	e := newEndpoint(t)
	e.answer("DeleteUser", nil)
	if _, err := e.iam().DeleteUser(context.Background(), &iam.DeleteUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
}

func TestIAMClientSendsMemberListsWeReadInOrder(t *testing.T) {
	e := newEndpoint(t)
	e.answer("CreateOpenIDConnectProvider", createOpenIDConnectProviderResult{OpenIDConnectProviderArn: "arn:aws:iam::123456789012:oidc-provider/example.com"})
	e.answer("UntagUser", nil)
	// Twelve members: the SDK sends them sorted as text (member.1,
	// member.10, member.11, member.12, member.2...).
	var clientIDs []string
	for i := 1; i <= 12; i++ {
		clientIDs = append(clientIDs, fmt.Sprintf("client-%d", i))
	}
	client := e.iam()

	out, err := client.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://example.com"), ClientIDList: clientIDs, ThumbprintList: []string{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.OpenIDConnectProviderArn) != "arn:aws:iam::123456789012:oidc-provider/example.com" {
		t.Errorf("OpenIDConnectProviderArn = %q", aws.ToString(out.OpenIDConnectProviderArn))
	}
	req, _ := e.last()
	if got, err := req.List("ClientIDList"); err != nil || !reflect.DeepEqual(got, clientIDs) {
		t.Errorf("parsed ClientIDList = %v, %v; want %v", got, err, clientIDs)
	}
	if got, err := req.List("ThumbprintList"); err != nil || got == nil || len(got) != 0 {
		t.Errorf("parsed ThumbprintList = %#v, %v; want an empty list, sent as ThumbprintList=", got, err)
	}
	if got, err := req.Tags("Tags"); err != nil || got != nil {
		t.Errorf("parsed Tags = %#v, %v; want nil, not sent", got, err)
	}

	if _, err := client.UntagUser(context.Background(), &iam.UntagUserInput{UserName: aws.String("alice"), TagKeys: []string{"team", "env"}}); err != nil {
		t.Fatal(err)
	}
	req, _ = e.last()
	if got, err := req.List("TagKeys"); err != nil || !reflect.DeepEqual(got, []string{"team", "env"}) {
		t.Errorf("parsed TagKeys = %v, %v; want [team env]", got, err)
	}
}

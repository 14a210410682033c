package localaws_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestOpenIDConnectProviders(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	thumbprint := "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"
	created := must[*iam.CreateOpenIDConnectProviderOutput](t, "CreateOpenIDConnectProvider")(admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://token.actions.githubusercontent.com"), ClientIDList: []string{"sts.amazonaws.com"},
		ThumbprintList: []string{thumbprint}, Tags: []types.Tag{tag("ci", "github")},
	}))
	arn := created.OpenIDConnectProviderArn
	if aws.ToString(arn) != "arn:aws:iam::"+account+":oidc-provider/token.actions.githubusercontent.com" || tagMap(created.Tags)["ci"] != "github" {
		t.Errorf("CreateOpenIDConnectProvider = %s %v", aws.ToString(arn), created.Tags)
	}
	// ThumbprintList and ClientIDList may be left out.
	other := must[*iam.CreateOpenIDConnectProviderOutput](t, "CreateOpenIDConnectProvider")(admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://issuer.example.com/tenant")})).OpenIDConnectProviderArn
	_, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://token.actions.githubusercontent.com")})
	wantCode(t, "the same issuer twice", err, "EntityAlreadyExists")
	_, err = admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("http://insecure.example.com")})
	wantCode(t, "an http issuer", err, "InvalidInput")

	got := must[*iam.GetOpenIDConnectProviderOutput](t, "GetOpenIDConnectProvider")(admin.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn}))
	if aws.ToString(got.Url) != "token.actions.githubusercontent.com" || !slices.Equal(got.ClientIDList, []string{"sts.amazonaws.com"}) ||
		!slices.Equal(got.ThumbprintList, []string{thumbprint}) || got.CreateDate == nil || tagMap(got.Tags)["ci"] != "github" {
		t.Errorf("GetOpenIDConnectProvider = %+v", got)
	}

	must[*iam.AddClientIDToOpenIDConnectProviderOutput](t, "AddClientIDToOpenIDConnectProvider")(admin.AddClientIDToOpenIDConnectProvider(ctx, &iam.AddClientIDToOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, ClientID: aws.String("other")}))
	must[*iam.RemoveClientIDFromOpenIDConnectProviderOutput](t, "RemoveClientIDFromOpenIDConnectProvider")(admin.RemoveClientIDFromOpenIDConnectProvider(ctx, &iam.RemoveClientIDFromOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, ClientID: aws.String("sts.amazonaws.com")}))
	must[*iam.UpdateOpenIDConnectProviderThumbprintOutput](t, "UpdateOpenIDConnectProviderThumbprint")(admin.UpdateOpenIDConnectProviderThumbprint(ctx, &iam.UpdateOpenIDConnectProviderThumbprintInput{OpenIDConnectProviderArn: arn, ThumbprintList: []string{}}))
	got = must[*iam.GetOpenIDConnectProviderOutput](t, "GetOpenIDConnectProvider")(admin.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn}))
	if !slices.Equal(got.ClientIDList, []string{"other"}) || len(got.ThumbprintList) != 0 {
		t.Errorf("after updates: clients %v, thumbprints %v", got.ClientIDList, got.ThumbprintList)
	}

	must[*iam.TagOpenIDConnectProviderOutput](t, "TagOpenIDConnectProvider")(admin.TagOpenIDConnectProvider(ctx, &iam.TagOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, Tags: []types.Tag{tag("env", "prod")}}))
	must[*iam.UntagOpenIDConnectProviderOutput](t, "UntagOpenIDConnectProvider")(admin.UntagOpenIDConnectProvider(ctx, &iam.UntagOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, TagKeys: []string{"ci"}}))
	tags := must[*iam.ListOpenIDConnectProviderTagsOutput](t, "ListOpenIDConnectProviderTags")(admin.ListOpenIDConnectProviderTags(ctx, &iam.ListOpenIDConnectProviderTagsInput{OpenIDConnectProviderArn: arn}))
	if m := tagMap(tags.Tags); len(m) != 1 || m["env"] != "prod" {
		t.Errorf("provider tags = %v, want env=prod alone", m)
	}

	list := must[*iam.ListOpenIDConnectProvidersOutput](t, "ListOpenIDConnectProviders")(admin.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{}))
	var arns []string
	for _, p := range list.OpenIDConnectProviderList {
		arns = append(arns, aws.ToString(p.Arn))
	}
	slices.Sort(arns)
	if !slices.Equal(arns, []string{aws.ToString(other), aws.ToString(arn)}) {
		t.Errorf("ListOpenIDConnectProviders = %v", arns)
	}

	must[*iam.DeleteOpenIDConnectProviderOutput](t, "DeleteOpenIDConnectProvider")(admin.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn}))
	_, err = admin.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn})
	wantCode(t, "GetOpenIDConnectProvider after delete", err, "NoSuchEntity")
	_, err = admin.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn})
	wantCode(t, "DeleteOpenIDConnectProvider twice", err, "NoSuchEntity")
}

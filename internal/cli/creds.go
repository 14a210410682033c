package cli

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/termsafe"
)

// errUnusable is inspect's "no": the credentials are empty, partial or
// malformed. It wraps errNotReady, which Run maps to ExitNo.
var errUnusable = errors.New("credentials not usable")

func newCreds() *cobra.Command {
	const short = "Inspect and seed AWS credentials files and Secrets without showing a secret"
	cmd := &cobra.Command{
		Use:   "creds",
		Short: short,
		Long: long(short, `creds reads and writes the credentials a controller gets: a Secret with the
keys aws_access_key_id, aws_secret_access_key and credentials (a shared
credentials file), or such a file on its own.

inspect says what a Secret or file holds; seed writes a Secret from the
AWS_* variables of your environment; encode and decode convert the
credentials file to and from the base64 form cluster bootstrap tools take.
None of them prints a key ID, secret or token.`),
		Example: example(
			"# What does this Secret hold?",
			"leash creds inspect secret.yaml",
			"",
			"# A Secret manifest from the keys in your environment",
			"leash creds seed --namespace kube-system --name aws-creds --out aws-creds.yaml",
		),
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCredsInspect(), newCredsSeed(), newCredsEncode(), newCredsDecode())
	return cmd
}

func newCredsInspect() *cobra.Command {
	var output, format string
	const short = "Say which credentials a Secret manifest or credentials file holds, never a value"
	cmd := &cobra.Command{
		Use:   "inspect SECRET.yaml|FILE",
		Short: short,
		Long: long(short, `inspect classifies a Secret manifest (its data or stringData keys
aws_access_key_id, aws_secret_access_key, aws_session_token and the
credentials file in credentials) or a shared credentials file: its mode
(static keys, temporary, web identity, empty or malformed), the names of the
keys present, and whether the access key ID is long-term (AKIA) or temporary
(ASIA). Problems are named: a line that is not INI, half a key pair, a token
without a key, or a Secret whose keys and credentials file disagree on the
key ID. Values are never printed.

Files ending in .yaml, .yml or .json, or with a line starting "kind:", are
read as Secret manifests; others as credentials files (see --format).

Exit status: 0 when the credentials are usable (static, temporary or web
identity), 1 when they are empty, partial or malformed, 2 when the file
cannot be read or is not a Secret manifest.`),
		Example: example(
			"# A Secret manifest, such as one leash apply wrote",
			"leash creds inspect leash-data/secrets/kube-system/aws-creds.yaml",
			"",
			"# A credentials file, as JSON",
			"leash creds inspect ~/.aws/credentials --output json",
		),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text or json", output)}
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			var r credfile.Report
			switch format {
			case "auto":
				if isManifest(args[0], data) {
					format = "secret"
				} else {
					format = "file"
				}
				fallthrough
			case "secret", "file":
				if format == "file" {
					r = credfile.Inspect(string(data))
				} else if r, err = credfile.InspectSecret(data); err != nil {
					return &inputerr.Error{Msg: fmt.Sprintf("%s: %v", args[0], err)}
				}
			default:
				return &inputerr.Error{Msg: fmt.Sprintf("--format %q: use auto, secret or file", format)}
			}
			return printReport(cmd.OutOrStdout(), r, output)
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "`FORMAT`: text (one key: value a line) or json")
	cmd.Flags().StringVar(&format, "format", "auto", "what the file is: auto, secret (a Secret manifest) or file (a credentials file)")
	return cmd
}

// isManifest says whether a file is read as a Secret manifest: by its
// extension, else by a top-level kind: line.
func isManifest(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "kind:") || strings.HasPrefix(line, "apiVersion:") {
			return true
		}
	}
	return false
}

// printReport writes r as text or JSON and returns errUnusable when the
// credentials are not usable.
func printReport(w io.Writer, r credfile.Report, output string) error {
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		writeReport(w, "", r)
	}
	if !r.Usable() {
		return errUnusable
	}
	return nil
}

// writeReport writes r as text. The profile and key names and the problems
// that quote them are the file's own words, escaped (termsafe.Escape) so
// that none starts a line of its own.
func writeReport(w io.Writer, prefix string, r credfile.Report) {
	fmt.Fprintf(w, "%smode: %s\n", prefix, r.Mode)
	if len(r.Profiles) > 0 {
		fmt.Fprintf(w, "%sprofiles: %s\n", prefix, termsafe.Escape(strings.Join(r.Profiles, ", ")))
	}
	fmt.Fprintf(w, "%skeys: %s\n", prefix, termsafe.Escape(strings.Join(r.Keys, ", ")))
	if r.KeyIDClass != "" {
		fmt.Fprintf(w, "%skey ID: %s\n", prefix, r.KeyIDClass)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "%sproblem: %s\n", prefix, termsafe.Escape(p))
	}
	if r.Credentials != nil {
		writeReport(w, "credentials file ", *r.Credentials)
	}
}

// ambientKey reads the AWS_* variables; a partial pair or a token without a
// pair is bad input naming what is missing.
func ambientKey() (id, secret, token string, err error) {
	id, secret, token = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")
	switch {
	case id == "" && secret == "" && token != "":
		err = &inputerr.Error{Msg: "AWS_SESSION_TOKEN is set but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not; a token goes with its key pair"}
	case id == "" && secret == "":
		err = &inputerr.Error{Msg: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set; export the key pair to seed"}
	case secret == "":
		err = &inputerr.Error{Msg: "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; a key needs both halves"}
	case id == "":
		err = &inputerr.Error{Msg: "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; a key needs both halves"}
	}
	return id, secret, token, err
}

// writeSecretFile writes data readable by its owner only, refusing to
// replace a file unless force.
func writeSecretFile(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, os.ErrExist) {
		return &inputerr.Error{Msg: fmt.Sprintf("--out %s exists; give --force to replace it", path)}
	}
	if err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	// A replaced file keeps its mode; it holds a secret now.
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// destination checks that exactly one place to put a secret was given.
func destination(out string, stdout bool, kubeconfig string, seeding bool) error {
	n := 0
	for _, set := range []bool{out != "", stdout, kubeconfig != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		where := "--out FILE (readable by you only) or --stdout"
		if seeding {
			where = "--out FILE (readable by you only), --stdout or --kubeconfig FILE"
		}
		return &inputerr.Error{Msg: "say where the secret goes: " + where}
	case n > 1:
		return &inputerr.Error{Msg: "give only one of --out, --stdout and --kubeconfig"}
	}
	return nil
}

func newCredsSeed() *cobra.Command {
	var namespace, name, out, kubeconfig string
	var stdout, force bool
	const short = "Write a credentials Secret from the AWS_* variables of the environment"
	cmd := &cobra.Command{
		Use:   "seed --namespace NS --name NAME --out FILE|--stdout|--kubeconfig FILE",
		Short: short,
		Long: long(short, `seed reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, if set,
AWS_SESSION_TOKEN, and writes a Secret (type Opaque) holding them as
aws_access_key_id, aws_secret_access_key and aws_session_token, and as the
credentials file in credentials: the keys consumers of the compatible API
read. It refuses half a key pair, or a token without a pair.

The manifest goes to --out FILE (created readable by you only; --force
replaces an existing one), or to stdout only with --stdout. With
--kubeconfig FILE it is applied to that cluster instead (server-side apply,
field owner leash), creating or updating the Secret.

Exit status: 0, or 2 on bad input.`),
		Example: example(
			"# A manifest to commit to an encrypted store",
			"leash creds seed --namespace kube-system --name aws-creds --out aws-creds.yaml",
			"",
			"# Straight into a cluster",
			"leash creds seed --namespace kube-system --name aws-creds --kubeconfig ~/.kube/config",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if errs := validation.IsDNS1123Label(namespace); namespace == "" || len(errs) > 0 {
				return &inputerr.Error{Msg: fmt.Sprintf("--namespace %q: give a namespace name (%s)", namespace, strings.Join(errs, "; "))}
			}
			if errs := validation.IsDNS1123Subdomain(name); name == "" || len(errs) > 0 {
				return &inputerr.Error{Msg: fmt.Sprintf("--name %q: give a Secret name (%s)", name, strings.Join(errs, "; "))}
			}
			if err := destination(out, stdout, kubeconfig, true); err != nil {
				return err
			}
			id, secret, token, err := ambientKey()
			if err != nil {
				return err
			}
			s := seedSecret(namespace, name, id, secret, token)
			if kubeconfig != "" {
				return applySecret(cmd, kubeconfig, s)
			}
			data, err := yaml.Marshal(s)
			if err != nil {
				return err
			}
			if stdout {
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			if err := writeSecretFile(out, data, force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote Secret %s/%s (%s key) to %s, readable by you only\n",
				namespace, name, credfile.ClassifyKeyID(id), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&namespace, "namespace", "n", "", "`NAMESPACE` of the Secret")
	f.StringVar(&name, "name", "", "`NAME` of the Secret")
	f.StringVar(&out, "out", "", "`FILE` to write the manifest to, readable by you only")
	f.BoolVar(&stdout, "stdout", false, "print the manifest, secret and all, to stdout")
	f.BoolVar(&force, "force", false, "replace an existing --out file")
	f.StringVar(&kubeconfig, "kubeconfig", "", "apply the Secret to the cluster of this kubeconfig `FILE` instead of writing it")
	return cmd
}

// seedSecret is the Secret seed writes.
func seedSecret(namespace, name, id, secret, token string) *corev1.Secret {
	data := map[string][]byte{
		credfile.SecretKeyID:          []byte(id),
		credfile.SecretKeySecret:      []byte(secret),
		credfile.SecretKeyCredentials: []byte(credfile.Static(id, secret, token)),
	}
	if token != "" {
		data[credfile.SecretKeySessionToken] = []byte(token)
	}
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "leash"}},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
}

// applySecret creates or updates s in the cluster with server-side apply.
func applySecret(cmd *cobra.Command, kubeconfig string, s *corev1.Secret) error {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	if err := c.Patch(cmd.Context(), s, client.Apply, client.FieldOwner("leash"), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "applied Secret %s/%s (%s key)\n", s.Namespace, s.Name, credfile.ClassifyKeyID(string(s.Data[credfile.SecretKeyID])))
	return nil
}

func newCredsEncode() *cobra.Command {
	var out string
	var stdout, force bool
	const short = "Write the base64 credentials file of the AWS_* variables, for bootstrap tools"
	cmd := &cobra.Command{
		Use:   "encode --out FILE|--stdout",
		Short: short,
		Long: long(short, `encode reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, if set,
AWS_SESSION_TOKEN, renders them as a shared credentials file ([default]
profile) and writes its base64, the form cluster bootstrap tools take for
cloud credentials, to --out FILE (created readable by you only; --force
replaces it), or to stdout only with --stdout. It refuses half a key pair.

Exit status: 0, or 2 on bad input.`),
		Example: example(
			"# The base64 credentials file, for a bootstrap tool's config",
			"leash creds encode --out credentials.b64",
			"",
			"# And back: what it holds, without the values",
			"leash creds decode credentials.b64",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := destination(out, stdout, "", false); err != nil {
				return err
			}
			id, secret, token, err := ambientKey()
			if err != nil {
				return err
			}
			data := []byte(base64.StdEncoding.EncodeToString([]byte(credfile.Static(id, secret, token))) + "\n")
			if stdout {
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			if err := writeSecretFile(out, data, force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote the base64 credentials file (%s key) to %s, readable by you only\n",
				credfile.ClassifyKeyID(id), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "`FILE` to write to, readable by you only")
	f.BoolVar(&stdout, "stdout", false, "print the base64, secret and all, to stdout")
	f.BoolVar(&force, "force", false, "replace an existing --out file")
	return cmd
}

func newCredsDecode() *cobra.Command {
	var output string
	const short = "Inspect a base64 credentials file, as bootstrap tools take it, never showing a value"
	cmd := &cobra.Command{
		Use:   "decode FILE",
		Short: short,
		Long: long(short, `decode reads a base64-encoded shared credentials file (as leash creds encode
writes it, or a bootstrap tool's config holds it) and reports on it as
leash creds inspect does: mode, key names and key ID class, never a value.

Exit status: 0 when the credentials are usable, 1 when they are empty,
partial or malformed, 2 when FILE cannot be read or is not base64.`),
		Example: example(
			"# What a bootstrap tool's base64 credentials hold",
			"leash creds decode credentials.b64",
			"",
			"# As JSON",
			"leash creds decode credentials.b64 --output json",
		),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text or json", output)}
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			text, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), ""))
			if err != nil {
				// The decoder's error names a byte offset, never the content.
				return &inputerr.Error{Msg: fmt.Sprintf("%s is not base64: %v", args[0], err)}
			}
			return printReport(cmd.OutOrStdout(), credfile.Inspect(string(text)), output)
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "`FORMAT`: text (one key: value a line) or json")
	return cmd
}

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"time"
)

// options say what the image is and where it comes from.
type options struct {
	repo, version, revision, source string
	created                         time.Time
}

// The image's fixed settings: the user is numeric (no /etc/passwd is
// needed to run as it, and runAsNonRoot can verify it), and there is no
// shell to exec into.
const (
	user       = "65532:65532"
	binaryPath = "leash"
)

var entrypoint = []string{"/leash", "operator"}

// Media types of the OCI image specification.
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int               `json:"size"`
	Platform    *platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// blob is content with its digest.
type blob struct {
	data   []byte
	digest string
}

func newBlob(data []byte) blob {
	sum := sha256.Sum256(data)
	return blob{data: data, digest: "sha256:" + hex.EncodeToString(sum[:])}
}

func (b blob) path() string { return "blobs/sha256/" + b.digest[len("sha256:"):] }

func (b blob) describe(media string) descriptor {
	return descriptor{MediaType: media, Digest: b.digest, Size: len(b.data)}
}

// labels are the OCI annotations the image carries as labels (docker
// inspect shows them) and on its manifest.
func (o options) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":    "leash",
		"org.opencontainers.image.version":  o.version,
		"org.opencontainers.image.revision": o.revision,
		"org.opencontainers.image.created":  o.created.Format(time.RFC3339),
	}
	if o.source != "" {
		l["org.opencontainers.image.source"] = o.source
	}
	return l
}

// writeArchive writes the image for linux/arch, with binary as /leash, to
// name; a failure leaves no file behind.
func writeArchive(name string, o options, arch string, binary []byte) (err error) {
	layerTar, err := layer(binary, o.created)
	if err != nil {
		return err
	}
	diffID := newBlob(layerTar).digest
	gz, err := gzipped(layerTar)
	if err != nil {
		return err
	}
	layerBlob := newBlob(gz)
	ref := o.repo + ":" + tagOf(o.version)
	config := newBlob(mustJSON(map[string]any{
		"created":      o.created,
		"architecture": arch,
		"os":           "linux",
		"config": map[string]any{
			"User":       user,
			"Entrypoint": entrypoint,
			"WorkingDir": "/",
			"Labels":     o.labels(),
		},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": []string{diffID}},
		"history": []map[string]any{{"created": o.created, "created_by": "make image: leash " + o.version + " at /leash"}},
	}))
	manifest := newBlob(mustJSON(map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaManifest,
		"config":        config.describe(mediaConfig),
		"layers":        []descriptor{layerBlob.describe(mediaLayer)},
		"annotations":   o.labels(),
	}))
	md := manifest.describe(mediaManifest)
	md.Platform = &platform{Architecture: arch, OS: "linux"}
	md.Annotations = map[string]string{
		"org.opencontainers.image.ref.name": tagOf(o.version),
		"io.containerd.image.name":          ref, // the name containerd (and kind load) gives it
	}
	index := mustJSON(map[string]any{"schemaVersion": 2, "mediaType": mediaIndex, "manifests": []descriptor{md}})
	dockerManifest := mustJSON([]map[string]any{{
		"Config": config.path(), "RepoTags": []string{ref}, "Layers": []string{layerBlob.path()},
	}})

	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name)
		}
	}()
	tw := tar.NewWriter(f)
	files := []struct {
		name string
		data []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", index},
		{"manifest.json", dockerManifest},
		{config.path(), config.data},
		{manifest.path(), manifest.data},
		{layerBlob.path(), layerBlob.data},
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: o.created}); err != nil {
			return err
		}
	}
	for _, file := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: file.name, Mode: 0o644, Size: int64(len(file.data)), ModTime: o.created}); err != nil {
			return err
		}
		if _, err := tw.Write(file.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// layer is the image's one filesystem layer: the binary at /leash, owned
// by root and executable by anyone (the image runs as 65532).
func layer(binary []byte, created time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: binaryPath, Mode: 0o555, Size: int64(len(binary)), ModTime: created, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(binary); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// gzipped compresses with no name or time in the header, so that the same
// layer always has the same digest.
func gzipped(data []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps, slices and strings of this package
	}
	return data
}

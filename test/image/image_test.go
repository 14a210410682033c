// Package image tests the operator's container image as `make image`
// builds it (hack/image.sh): that each platform's archive is a valid OCI
// image layout and Docker archive (checked here, and read by skopeo, an
// implementation of both that is not ours), that its config says what the
// image must be (numeric non-root user, entrypoint `leash operator`,
// platform, labels), and that the binary taken from its layer runs and
// knows its commit.
package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const version = "v9.9.9-test"

// archTo is the ELF machine of each image platform's binary.
var archTo = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

func TestImageArchives(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v (the test runs in a clone, as CI's is)", err)
	}
	commit := strings.TrimSpace(string(head))
	dist := t.TempDir()
	build := exec.Command("hack/image.sh")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "DIST="+dist, "VERSION="+version, "IMAGE=example.com/leash", "SOURCE=https://user:token@example.com/leash.git")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("hack/image.sh: %v\n%s", err, out)
	}
	for arch, machine := range archTo {
		t.Run(arch, func(t *testing.T) {
			path := filepath.Join(dist, "leash-image-"+version+"-linux-"+arch+".tar")
			files := readTar(t, path)
			img := checkLayout(t, files, arch)
			cfg := img.config.Config
			if cfg.User != "65532:65532" || !slices.Equal(cfg.Entrypoint, []string{"/leash", "operator"}) {
				t.Errorf("user %q entrypoint %q; want 65532:65532 and [/leash operator]", cfg.User, cfg.Entrypoint)
			}
			for key, want := range map[string]string{
				"org.opencontainers.image.version":  version,
				"org.opencontainers.image.revision": commit,
				"org.opencontainers.image.source":   "https://example.com/leash.git", // the token is dropped
			} {
				if got := cfg.Labels[key]; got != want {
					t.Errorf("label %s = %q, want %q", key, got, want)
				}
			}
			if img.config.OS != "linux" || img.config.Architecture != arch {
				t.Errorf("platform %s/%s, want linux/%s", img.config.OS, img.config.Architecture, arch)
			}
			bin := filepath.Join(t.TempDir(), "leash")
			if err := os.WriteFile(bin, img.binary, 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatalf("/leash is not an ELF binary: %v", err)
			}
			if f.Machine != machine {
				t.Errorf("/leash is for %v, want %v", f.Machine, machine)
			}
			if _, err := f.DynamicSymbols(); err == nil {
				t.Errorf("/leash is dynamically linked; the image has no libc")
			}
			_ = f.Close()
			for _, transport := range []string{"oci-archive:", "docker-archive:"} {
				out, err := exec.Command("skopeo", "inspect", "--config", "--raw", transport+path).Output()
				if err != nil {
					t.Fatalf("skopeo inspect %s: %v (install it with apt-get install skopeo, as .ci/run does)", transport, err)
				}
				if !bytes.Equal(out, img.configRaw) {
					t.Errorf("skopeo read another config through %s", transport)
				}
			}
			if arch != runtime.GOARCH {
				return
			}
			out, err := exec.Command(bin, "version").Output()
			if err != nil {
				t.Fatalf("leash version from the image: %v", err)
			}
			if !strings.HasPrefix(string(out), "leash "+version+" commit "+commit) {
				t.Errorf("leash version from the image printed %q; want version %s and commit %s", out, version, commit)
			}
		})
	}
}

type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

type image struct {
	config    imageConfig
	configRaw []byte
	binary    []byte
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int               `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

// checkLayout follows the OCI layout from index.json to the one layer,
// checking every digest and size on the way and that Docker's
// manifest.json names the same config and layer, and returns the config
// and the layer's /leash.
func checkLayout(t *testing.T, files map[string][]byte, arch string) image {
	t.Helper()
	blob := func(d descriptor) []byte {
		t.Helper()
		data, ok := files["blobs/sha256/"+strings.TrimPrefix(d.Digest, "sha256:")]
		if !ok {
			t.Fatalf("blob %s is missing", d.Digest)
		}
		if digest(data) != d.Digest || len(data) != d.Size {
			t.Fatalf("blob %s: digest %s size %d, want size %d", d.Digest, digest(data), len(data), d.Size)
		}
		return data
	}
	if string(files["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout = %q", files["oci-layout"])
	}
	var index struct{ Manifests []descriptor }
	mustUnmarshal(t, files["index.json"], &index)
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(index.Manifests))
	}
	md := index.Manifests[0]
	if md.Platform.OS != "linux" || md.Platform.Architecture != arch || md.Annotations["io.containerd.image.name"] != "example.com/leash:"+version {
		t.Errorf("index.json's manifest: platform %+v annotations %v", md.Platform, md.Annotations)
	}
	var manifest struct {
		Config descriptor
		Layers []descriptor
	}
	mustUnmarshal(t, blob(md), &manifest)
	if len(manifest.Layers) != 1 {
		t.Fatalf("%d layers, want 1", len(manifest.Layers))
	}
	img := image{configRaw: blob(manifest.Config)}
	mustUnmarshal(t, img.configRaw, &img.config)
	zipped := blob(manifest.Layers[0])
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	layer, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(img.config.RootFS.DiffIDs, []string{digest(layer)}) {
		t.Errorf("diff_ids %v, want the uncompressed layer's %s", img.config.RootFS.DiffIDs, digest(layer))
	}
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "leash" || h.Mode != 0o555 || h.Uid != 0 {
			t.Errorf("layer holds %s (mode %o, uid %d); want only leash, mode 555, owned by root", h.Name, h.Mode, h.Uid)
			continue
		}
		img.binary, _ = io.ReadAll(tr)
	}
	if img.binary == nil {
		t.Fatal("the layer has no /leash")
	}
	var docker []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	mustUnmarshal(t, files["manifest.json"], &docker)
	if len(docker) != 1 || docker[0].Config != "blobs/sha256/"+strings.TrimPrefix(manifest.Config.Digest, "sha256:") ||
		!slices.Equal(docker[0].Layers, []string{"blobs/sha256/" + strings.TrimPrefix(manifest.Layers[0].Digest, "sha256:")}) ||
		!slices.Equal(docker[0].RepoTags, []string{"example.com/leash:" + version}) {
		t.Errorf("manifest.json (docker load's) = %+v", docker)
	}
	return img
}

func readTar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			files[h.Name], err = io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func mustUnmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
}

package agent

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
)

// deployScript runs on the remote host through ssh. It uses the agent
// cached there for exactly this binary (its checksum verified on every
// run), else a tablefull on the PATH, else asks for this binary: it
// prints "TABLEFULL-NEED <uname -sm>", reads "<size> <sha256>" (or
// "refuse"), then exactly size bytes into a mktemp file, verifies the
// checksum and caches the file per user. The cache directory is created
// 0700 and refused when it is a symlink, owned by another user, or
// writable by group or others. %[1]s is this binary's sha256. It travels
// inside single quotes, so it must hold none.
const deployScript = `set -e
umask 077
dir="${XDG_CACHE_HOME:-$HOME/.cache}/tablefull"
bin="$dir/tablefull-%[1]s"
mkdir -p "$dir"
if [ -L "$dir" ] || [ ! -d "$dir" ]; then echo "tablefull: $dir is not a directory: refusing it" >&2; exit 5; fi
set -- $(stat -c "%%u %%a" "$dir")
if [ "$1" != "$(id -u)" ]; then echo "tablefull: $dir is owned by uid $1, not you: refusing it" >&2; exit 5; fi
case "$2" in *[2367]?|*[2367]) echo "tablefull: $dir is writable by others (mode $2): refusing it" >&2; exit 5;; esac
sum() { sha256sum < "$1" | cut -d " " -f 1; }
if [ -f "$bin" ] && [ ! -L "$bin" ] && [ "$(sum "$bin")" = "%[1]s" ]; then exec "$bin" agent; fi
rm -f "$bin"
if command -v tablefull >/dev/null 2>&1; then exec tablefull agent; fi
echo "TABLEFULL-NEED $(uname -sm)"
read -r size want
[ "$size" != refuse ] || exit 3
case "$size" in ""|*[!0-9]*) echo "tablefull: bad size from the console" >&2; exit 4;; esac
tmp=$(mktemp "$dir/.tablefull.XXXXXX")
head -c "$size" > "$tmp"
if [ "$(sum "$tmp")" != "%[1]s" ]; then rm -f "$tmp"; echo "tablefull: checksum mismatch after copy" >&2; exit 4; fi
chmod 700 "$tmp"
mv -f "$tmp" "$bin"
exec "$bin" agent`

// unameFor maps Go's platform to what `uname -sm` prints.
func unameFor(goos, goarch string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l",
		"riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x"}[goarch]
	if arch == "" {
		arch = goarch
	}
	return strings.ToUpper(goos[:1]) + goos[1:] + " " + arch
}

// Deployer copies this binary to a remote that lacks it, over the ssh
// session that then runs it (tablefull --ssh HOST --deploy).
type Deployer struct {
	path string
	sum  string
	size int64
}

// NewDeployer checksums this binary for deploying it.
func NewDeployer() (*Deployer, error) {
	path, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open this binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("checksum this binary: %w", err)
	}
	return &Deployer{path: path, sum: hex.EncodeToString(h.Sum(nil)), size: n}, nil
}

// Script is the remote command.
func (d *Deployer) Script() string { return fmt.Sprintf(deployScript, d.sum) }

// maxNeedLine bounds the remote's "TABLEFULL-NEED os/arch" line: a peer
// that never sends its newline is refused, not buffered.
const maxNeedLine = 256

// readBoundedLine reads one line of at most limit bytes from r.
func readBoundedLine(r *bufio.Reader, limit int) (string, error) {
	var line []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		if b == '\n' {
			return string(line), nil
		}
		if line = append(line, b); len(line) > limit {
			return "", fmt.Errorf("the remote's first line is over %d bytes: not the deploy script's", limit)
		}
	}
}

// Handshake answers the script: nothing when the remote already has an
// agent (the first line is then the stream header), the binary when it
// asks and runs the same OS and architecture, a refusal otherwise.
func (d *Deployer) Handshake(out *bufio.Reader, in io.Writer) error {
	peek, err := out.Peek(len("TABLEFULL-NEED"))
	if err != nil || string(peek) != "TABLEFULL-NEED" {
		return nil // an agent is already there; its stream starts now
	}
	line, err := readBoundedLine(out, maxNeedLine)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	far := safe.Text(strings.TrimSpace(strings.TrimPrefix(line, "TABLEFULL-NEED")), maxNeedLine)
	local := unameFor(runtime.GOOS, runtime.GOARCH)
	if far != local {
		fmt.Fprintln(in, "refuse")
		return fmt.Errorf("deploy: the remote is %s but this binary is %s/%s: build one for it (GOOS=linux GOARCH=<arch> go build ./cmd/tablefull) and put it on the remote PATH",
			far, runtime.GOOS, runtime.GOARCH)
	}
	f, err := os.Open(d.path)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(in, "%d %s\n", d.size, d.sum); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	if _, err := io.Copy(in, f); err != nil {
		return fmt.Errorf("deploy: copy binary: %w", err)
	}
	return nil
}

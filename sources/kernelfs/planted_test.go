package kernelfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestBoundedReadsRefusePlantedFIFO: ReadBounded and ReadHead (the
// drop-ins, the undo record and the state files are read through them)
// refuse a FIFO planted in a file's place at once rather than wait for a
// writer that never comes; a link to a regular file is still read, as
// /etc/sysctl.d/99-sysctl.conf is one.
func TestBoundedReadsRefusePlantedFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "99-tablefull.conf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) ([]byte, error){
		"ReadBounded": func(p string) ([]byte, error) { return ReadBounded(p, 1024) },
		"ReadHead":    func(p string) ([]byte, error) { return ReadHead(p, 1024) },
	} {
		done := make(chan error, 1)
		go func() { _, err := read(fifo); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrUntrusted) {
				t.Errorf("%s of a FIFO: %v, want it refused as not a regular file", name, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%s of a planted FIFO blocks", name)
		}
	}
	target := filepath.Join(dir, "sysctl.conf")
	if err := os.WriteFile(target, []byte("net.netfilter.nf_conntrack_max = 8192\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "99-sysctl.conf")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadBounded(link, 1024); err != nil || len(b) == 0 {
		t.Errorf("a link to a regular file: %q %v", b, err)
	}
}

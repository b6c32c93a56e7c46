package kernelfstest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFOFor is a FIFO named name in a directory of its own that another
// user can reach (an impostor run as nobody whose file would hang a
// reader that opened it), removed when the test ends.
func FIFOFor(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fifo-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, name)
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	return fifo
}

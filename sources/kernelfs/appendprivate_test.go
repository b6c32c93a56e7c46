package kernelfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAppendPrivate: a journal line goes into a private file made 0600;
// a symlink planted in its place is not written through, a FIFO is not
// blocked on, and a file with others' permissions is refused.
func TestAppendPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "entries.journal")
	if err := AppendPrivate(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := AppendPrivate(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Errorf("journal %q", b)
	}
	target := filepath.Join(t.TempDir(), "root-owned")
	os.WriteFile(target, []byte("kept"), 0o600)
	link := filepath.Join(dir, "linked")
	os.Symlink(target, link)
	if err := AppendPrivate(link, []byte("x\n")); !errors.Is(err, ErrUntrusted) {
		t.Errorf("through a symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target was written: %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	done := make(chan error, 1)
	go func() { done <- AppendPrivate(fifo, []byte("x\n")) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO taken as the journal")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("appending to a FIFO blocks")
	}
	open := filepath.Join(dir, "open")
	os.WriteFile(open, nil, 0o666)
	os.Chmod(open, 0o666)
	if err := AppendPrivate(open, []byte("x\n")); !errors.Is(err, ErrUntrusted) {
		t.Errorf("a file others may write: %v", err)
	}
}

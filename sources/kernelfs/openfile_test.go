package kernelfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenFileReadsWhole: text longer than the buffer comes back whole,
// and a rewritten file is read afresh from its start.
func TestOpenFileReadsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	long := strings.Repeat("0123456789", 30)
	if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	f := NewOpenFile(path, 8)
	defer f.Close()
	for range 2 {
		b, err := f.Read()
		if err != nil || string(b) != long {
			t.Fatalf("read %q, %v; want the whole %d bytes", b, err, len(long))
		}
	}
	if err := os.WriteFile(path, []byte("42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := f.Read(); err != nil || string(b) != "42\n" {
		t.Errorf("after rewrite read %q, %v; want \"42\\n\"", b, err)
	}
}

// TestOpenFileReopensAfterError: a failed read closes the file and the
// next read opens the path again; a missing path is ErrUnavailable.
func TestOpenFileReopensAfterError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.Mkdir(path, 0o755); err != nil { // opens, but cannot be read
		t.Fatal(err)
	}
	f := NewOpenFile(path, 16)
	defer f.Close()
	if _, err := f.Read(); err == nil {
		t.Fatal("reading a directory did not fail")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing file: %v, want ErrUnavailable", err)
	}
	if err := os.WriteFile(path, []byte("7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := f.Read(); err != nil || string(b) != "7\n" {
		t.Errorf("after the file came back: %q, %v", b, err)
	}
}

// TestOpenFileRegeneratesProc: a /proc file kept open shows new text on
// each read, as a fresh open would.
func TestOpenFileRegeneratesProc(t *testing.T) {
	f := NewOpenFile("/proc/uptime", 64)
	defer f.Close()
	first, err := f.Read()
	if err != nil {
		t.Skipf("no /proc/uptime: %v", err)
	}
	was := string(first)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		b, err := f.Read()
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != was {
			return
		}
	}
	t.Errorf("/proc/uptime read through the open file stayed %q for 2 s", was)
}

// TestOpenFileSeqFileWhole: a /proc seq file larger than the buffer is
// still read whole (same lines as os.ReadFile), not cut at a record.
func TestOpenFileSeqFileWhole(t *testing.T) {
	for _, path := range []string{"/proc/net/stat/nf_conntrack", "/proc/self/net/netstat", "/proc/stat"} {
		want, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		f := NewOpenFile(path, 16)
		got, err := f.Read()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// Numbers move between the two reads (/proc/stat's CPU times tick):
		// the shape is compared, the lines and each line's fields.
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		if len(gl) != len(wl) || len(strings.Fields(gl[0])) != len(strings.Fields(wl[0])) || strings.Fields(gl[0] + " x")[0] != strings.Fields(wl[0] + " x")[0] {
			t.Errorf("%s: %d lines starting %q, os.ReadFile gives %d starting %q", path, len(gl), gl[0], len(wl), wl[0])
		}
	}
}

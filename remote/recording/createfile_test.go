package recording

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordForceRefusesSymlink: --force replaces a recording, but never
// writes through a symlink planted at the name, nor truncates a device.
func TestRecordForceRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o600)
	link := filepath.Join(dir, "rec.jsonl")
	os.Symlink(victim, link)
	if _, err := CreateFile(link, true); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("--force over a symlink: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if _, err := CreateFile("/dev/null", true); err == nil || !strings.Contains(err.Error(), "regular") {
		t.Errorf("--force over a device: %v", err)
	}
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte("an older recording\n"), 0o644)
	f, err := CreateFile(old, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(old); st.Size() != 0 {
		t.Errorf("--force did not replace the old recording")
	}
}

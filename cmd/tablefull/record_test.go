package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/remote"
)

// TestRecordKilled: kill -9 in the middle of a recording leaves a file
// that replays up to the last complete sample.
func TestRecordKilled(t *testing.T) {
	exe, _ := os.Executable()
	path := filepath.Join(t.TempDir(), "incident.jsonl")
	cmd := exec.Command(exe, "record", path, "--interval", "100ms")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	rec, err := remote.ReadRecordingFile(path)
	if err != nil {
		t.Fatalf("replay a killed recording: %v", err)
	}
	if len(rec.Samples) < 5 {
		t.Errorf("%d samples in 1.5 s at 100 ms", len(rec.Samples))
	}

	var out, errb strings.Builder
	if code := run([]string{"record", path, "--duration", "1s"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("record over an existing file: code %d %q, want a refusal", code, errb.String())
	}
	notRec := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notRec, []byte("not a recording\n"), 0o644)
	if code := run([]string{"replay", notRec}, &out, &errb); code != 1 || !strings.Contains(errb.String(), notRec) || !strings.Contains(errb.String(), "not a tablefull stream") {
		t.Errorf("replay of a text file: code %d %q", code, errb.String())
	}
}

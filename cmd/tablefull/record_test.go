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
	rec, err := readRecording(path)
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

// TestRecordStops: a recording ends cleanly at its --duration and on
// SIGTERM, saying so, with the file complete.
func TestRecordStops(t *testing.T) {
	exe, _ := os.Executable()
	for _, how := range []string{"duration", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), how+".jsonl")
			args := []string{"record", path, "--interval", "100ms"}
			if how == "duration" {
				args = append(args, "--duration", "1s")
			}
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if how == "sigterm" {
				time.Sleep(time.Second)
				cmd.Process.Signal(syscall.SIGTERM)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("record ended with %v: %s", err, errb.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("record did not stop")
			}
			if !strings.Contains(errb.String(), "recorded "+path) {
				t.Errorf("stderr %q does not say the recording is done", errb.String())
			}
			rec, err := readRecording(path)
			if err != nil || len(rec.Samples) < 3 {
				t.Errorf("recording: %v, %d samples", err, len(rec.Samples))
			}
		})
	}
}

// TestRecordForceRefusesSymlink: --force replaces a recording, but never
// writes through a symlink planted at the name, nor truncates a device.
func TestRecordForceRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o600)
	link := filepath.Join(dir, "rec.jsonl")
	os.Symlink(victim, link)
	if _, err := createRecording(link, true); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("--force over a symlink: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if _, err := createRecording("/dev/null", true); err == nil || !strings.Contains(err.Error(), "regular") {
		t.Errorf("--force over a device: %v", err)
	}
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte("an older recording\n"), 0o644)
	f, err := createRecording(old, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(old); st.Size() != 0 {
		t.Errorf("--force did not replace the old recording")
	}
}

// readRecording reads a whole recording file.
func readRecording(path string) (*remote.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return remote.ReadRecording(f)
}

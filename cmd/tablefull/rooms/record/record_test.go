package record

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
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
	rec, err := clitest.ReadRecording(path)
	if err != nil {
		t.Fatalf("replay a killed recording: %v", err)
	}
	if len(rec.Samples) < 5 {
		t.Errorf("%d samples in 1.5 s at 100 ms", len(rec.Samples))
	}

	var out, errb strings.Builder
	if code := cli.Run([]string{"record", path, "--duration", "1s"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("record over an existing file: code %d %q, want a refusal", code, errb.String())
	}
	notRec := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notRec, []byte("not a recording\n"), 0o644)
	if code := cli.Run([]string{"replay", notRec}, &out, &errb); code != 1 || !strings.Contains(errb.String(), notRec) || !strings.Contains(errb.String(), "not a tablefull stream") {
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
			rec, err := clitest.ReadRecording(path)
			if err != nil || len(rec.Samples) < 3 {
				t.Errorf("recording: %v, %d samples", err, len(rec.Samples))
			}
		})
	}
}

package clitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/sources/netns"
)

// Said is what a surface says of the moment: the kind, the class, and
// the knobs its plan changes, sorted.
type Said struct {
	Kind  verdict.Kind
	Fills string
	Knobs []string
	Facts []verdict.Fact // the facts of the verdict of its kind
}

// ReadRecording reads a whole recording file.
func ReadRecording(path string) (*recording.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return recording.ReadRecording(f)
}

// JudgedRecording stops a running tablefull record (SIGINT) and reads
// back what it wrote to path, each sample judged as the console judges
// it: the samples, and the verdicts of every frame in their words.
func JudgedRecording(t *testing.T, record *exec.Cmd, path string) ([]model.Sample, []string) {
	t.Helper()
	got, err := recording.ReadRecording(bytes.NewReader(StopRecording(t, record, path)))
	if err != nil {
		t.Fatal(err)
	}
	an := diagnose.NewAnalyzer(len(got.Samples))
	var said []string
	for _, s := range got.Samples {
		for _, v := range an.Add(s).Verdicts {
			said = append(said, v.String())
		}
	}
	return got.Samples, said
}

// StopRecording stops a running tablefull record (SIGINT), waits for its
// end and returns what it wrote to path.
func StopRecording(t *testing.T, record *exec.Cmd, path string) []byte {
	t.Helper()
	record.Process.Signal(syscall.SIGINT)
	if err := record.Wait(); err != nil {
		t.Fatalf("record: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// StartRecording runs tablefull record every 500 ms until the test ends
// (or judgedRecording stops it): in ns, or on the host where ns is nil.
// It returns the command and the recording's path.
func StartRecording(t *testing.T, ns *netns.NS) (*exec.Cmd, string) {
	t.Helper()
	exe, _ := os.Executable()
	path := filepath.Join(t.TempDir(), "incident.jsonl")
	args := []string{"record", path, "--interval", "500ms"}
	record := exec.Command(exe, args...)
	if ns != nil {
		record = ns.Command(exe, args...)
	}
	record.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	StartUntilEnd(t, record)
	return record, path
}

// Package recordingtest is the ground of the tests that read and write
// recordings: a stream file of the fixture's samples, and the incidents
// recorded under the repository, read.
package recordingtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/remote/stream/streamtest"
)

// StreamFile writes a stream of n of the fixture's samples and returns
// its path.
func StreamFile(t testing.TB, n int) string {
	t.Helper()
	var buf bytes.Buffer
	enc, err := stream.NewEncoder(&buf, model.Host{Name: "remote-box"}, streamtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		enc.Sample(streamtest.TwoCPUSample(i))
	}
	path := filepath.Join(t.TempDir(), "stream.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Incidents are the recorded incidents under the repository's root: the
// demo, the lab's, and those in testdata/incidents.
func Incidents(t testing.TB, root string) []string {
	t.Helper()
	here, err := filepath.Glob(filepath.Join(root, "testdata/incidents/*.jsonl"))
	if err != nil || len(here) == 0 {
		t.Fatalf("no recorded incidents in %s/testdata/incidents: %v", root, err)
	}
	return append([]string{filepath.Join(root, "remote/recording/demo/table-full.jsonl"), filepath.Join(root, "remote/report/testdata/lab-table-full.jsonl")}, here...)
}

// Read reads the recording at path.
func Read(t testing.TB, path string) *recording.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := recording.ReadRecording(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

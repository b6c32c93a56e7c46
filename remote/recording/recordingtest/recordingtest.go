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

// Incidents are every recording we have under the repository's root:
// testdata/incidents, the demos and the report's (the property tests
// over every frame read the same set).
func Incidents(t testing.TB, root string) []string {
	t.Helper()
	var all []string
	for _, dir := range []string{"testdata/incidents", "remote/recording/demo", "remote/report/testdata"} {
		found, err := filepath.Glob(filepath.Join(root, dir, "*.jsonl"))
		if err != nil || len(found) == 0 {
			t.Fatalf("no recordings in %s: %v", filepath.Join(root, dir), err)
		}
		all = append(all, found...)
	}
	return all
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

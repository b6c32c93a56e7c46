package stream

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzDecoder: any bytes give samples, events or errors, never a panic or
// an endless loop. Seeds are in testdata/fuzz/FuzzDecoder.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"tablefull":"stream","v":1,"host":{"name":"h"}}` + "\n" + `{"k":"s","t":1,"tcp":[1,2,3,4,5,6,7,8,9,10]}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(strings.NewReader(string(b)))
		if err := d.Header(); err != nil {
			return
		}
		for range len(b) + 2 { // each call consumes at least one line
			_, _, err := d.Next()
			if err != nil && !errors.Is(err, ErrGarbage) {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrTruncated) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
		}
		t.Fatalf("decoder did not reach the end of %d bytes", len(b))
	})
}

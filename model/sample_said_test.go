package model

import (
	"testing"
)

func TestKernelLineSaidOnce(t *testing.T) {
	for in, want := range map[string]string{
		"nf_conntrack: nf_conntrack: table full, dropping packet": "nf_conntrack: table full, dropping packet",
		"nf_conntrack: table full, dropping packet":               "nf_conntrack: table full, dropping packet",
		"nf_conntrack: nf_conntrack: \x1b[31mtable full":          `nf_conntrack: \x1b[31mtable full`,
	} {
		if got := (KernelLine{Text: in}).Said(200); got != want {
			t.Errorf("Said(%q) = %q, want %q", in, got, want)
		}
	}
}

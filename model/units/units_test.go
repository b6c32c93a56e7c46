package units

import "testing"

func TestFormat(t *testing.T) {
	ints := map[uint64]string{0: "0", 999: "999", 4096: "4,096", 262144: "262,144", 1234567: "1,234,567"}
	for n, want := range ints {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
	nums := map[float64]string{0: "0", -1: "0", 0.5: "0.5", 3: "3", 34.13: "34", 1234.4: "1,234"}
	for v, want := range nums {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tt := range []struct {
		in   uint64
		want string
	}{{512, "512 B"}, {512 << 20, "512 MiB"}, {1536 << 20, "1.5 GiB"}, {25276063744, "24 GiB"}, {4 << 40, "4 TiB"}} {
		if got := Bytes(tt.in); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Package growstack grows the main goroutine's stack to 64 kB before the
// program's other packages initialize, while the stack holds three
// frames.
//
// A goroutine starts with 2 kB of stack and doubles it as its calls
// deepen. Each doubling copies the stack and reads the line table of
// every frame on it; a deep chain touches pages of that table all over
// the binary, and the kernel maps 64 kB of the file around each page
// touched. Grown once here, the initializers and the census (whose
// deepest chain is about 16 kB) never copy it: `tablefull census` peaked
// 1 MB lower. The package imports nothing, so it initializes among the
// first (Go initializes ready packages in import-path order).
package growstack

func init() { grow() }

// grow takes a 40 kB frame: the stack doubles to 64 kB to hold it.
//
//go:noinline
func grow() {
	var room [40 << 10]byte
	touch(room[:])
}

// touch keeps grow's frame: a frame nothing reads is compiled away.
//
//go:noinline
func touch(b []byte) { b[len(b)-1] = 1 }

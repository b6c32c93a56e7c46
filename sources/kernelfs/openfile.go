package kernelfs

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// OpenFile is a /proc or /sys file that stays open between samples and is
// re-read whole from offset 0 with one pread: sysctl and seq files
// generate their text afresh for a read at offset 0. Opening a /proc file
// costs more than reading it (path walk, and Go's os.Open registering the
// file with its poller), so the files a sample reads every interval stay
// open. A failed read closes the file and the next read opens it again:
// the module behind it may have been unloaded and loaded.
//
// The pread is a raw system call: it never blocks on these files, and the
// runtime's bookkeeping for an ordinary one wakes Go's sysmon thread,
// which on a small VM cost several extra context switches per read.
type OpenFile struct {
	path string
	f    *os.File
	fd   uintptr
	buf  []byte
}

// NewOpenFile reads path; the first read opens it, with buf bytes room.
func NewOpenFile(path string, room int) *OpenFile {
	return &OpenFile{path: path, buf: make([]byte, room)}
}

// Open opens the file when it is not open; errors are classified
// (ErrUnavailable when it does not exist).
func (o *OpenFile) Open() error {
	if o.f != nil {
		return nil
	}
	f, err := os.Open(o.path)
	if err != nil {
		return classify(fmt.Errorf("open %s: %w", o.path, err))
	}
	o.f, o.fd = f, f.Fd()
	return nil
}

// Read returns the whole text of the file, in a buffer reused by the next
// read. A file larger than the buffer is read again into one twice the
// size, so the text always comes from one pread: one consistent snapshot.
func (o *OpenFile) Read() ([]byte, error) {
	if err := o.Open(); err != nil {
		return nil, err
	}
	for {
		n, err := pread(o.fd, o.buf)
		if err != nil {
			o.Close()
			return nil, classify(fmt.Errorf("read %s: %w", o.path, err))
		}
		if n < len(o.buf) {
			return o.buf[:n], nil
		}
		o.buf = make([]byte, 2*len(o.buf))
	}
}

// Path is the file read.
func (o *OpenFile) Path() string { return o.path }

// Close releases the file; the next read opens it again.
func (o *OpenFile) Close() {
	if o.f != nil {
		o.f.Close()
		o.f, o.fd = nil, 0
	}
}

// pread reads from offset 0 of fd into buf with one raw system call.
func pread(fd uintptr, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	r, _, errno := syscall.RawSyscall6(syscall.SYS_PREAD64, fd,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// ReadRaw reads the non-blocking fd with a raw system call: it returns at
// once (EAGAIN when no record waits), and an ordinary one's bookkeeping
// wakes Go's sysmon thread every sample (see OpenFile).
func ReadRaw(fd int, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	r, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// Package nsenter runs code inside another network namespace of this
// host: the one way tablefull's readers and writers step into a
// namespace (a table of its own, its sysctls, its sockets).
package nsenter

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Net runs fn on an OS thread switched into the network namespace at
// path (/run/netns/NAME, /proc/PID/ns/net). Sockets fn creates belong to
// the namespace for their whole life, whichever thread uses them later;
// /proc/sys/net opened by fn is the namespace's. The thread is switched
// back before it is released; one that cannot be is never reused (it
// dies with its goroutine). The main thread is never the one: /proc/self
// — the process's own namespace and table — follows the main thread, and
// would read the namespace's while fn runs.
func Net(path string, fn func() error) error { return enter(path, nil, fn) }

// enter is Net with check, when set, run on the namespace's descriptor
// before the thread enters by it: an error there enters nothing.
func enter(path string, check func(*os.File) error, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() { // the main thread: /proc/self follows it wherever it goes
			err := enter(path, check, fn) // this goroutine holds it, so the nested one runs on another
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- fmt.Errorf("open this thread's namespace: %w", err)
			return // still locked: the thread dies with the goroutine
		}
		defer home.Close()
		f, err := os.Open(path)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("open %s: %w", path, err)
			return
		}
		defer f.Close()
		if check != nil {
			if err := check(f); err != nil {
				runtime.UnlockOSThread()
				errc <- err
				return
			}
		}
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setns %s: %w", path, err)
			return
		}
		err = fn()
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // home again: the thread may serve others
		}
		errc <- err
	}()
	return <-errc
}

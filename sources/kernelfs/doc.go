// Package kernelfs is the file plumbing every reader of the kernel
// shares: the roots of /proc, /sys, /dev, /etc and /run (injected, so
// tests run on fixtures), sysctl paths, reads bounded in size, counter
// files kept open and read with one pread, the mount table's namespace
// bind mounts, and the private state files tablefull keeps (written
// atomically, checked for owner and mode when read). It interprets no
// counter; it never writes outside the state files it is given.
package kernelfs

package kernelfs

import "errors"

// ErrUnavailable reports that a source does not exist on this host: a
// module that is not loaded, a file the kernel was built without.
var ErrUnavailable = errors.New("unavailable on this host")

// ErrPermission reports that a source exists but needs privileges.
var ErrPermission = errors.New("needs root")

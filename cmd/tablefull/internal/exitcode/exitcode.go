// Package exitcode is the exit codes of tablefull's subcommands beyond 1
// (an error) and 2 (a bad command line), and the error that carries one.
package exitcode

// Exit codes of tablefull tune (and Refused of tablefull entries).
const (
	Refused    = 3 // nothing written: bad value, --yes missing, memory cap, no privileges, read-only, global knob in a child namespace
	Unverified = 4 // written, but a value did not read back as asked
	Partial    = 5 // some changes written (and recorded for --undo), then one failed
	Pinned     = 6 // --until-free: still pinned after its steps (each applied, verified and recorded for --undo)
)

// Error carries a subcommand's own exit code with its message:
// tune's, and tablefull entries' (2 a bad filter, Refused a
// deletion refused).
type Error struct {
	Code int
	Err  error
}

// Error implements error.
func (e Error) Error() string { return e.Err.Error() }

// Unwrap implements error.
func (e Error) Unwrap() error { return e.Err }

// ExitCode is the exit code the subcommand ends with.
func (e Error) ExitCode() int { return e.Code }

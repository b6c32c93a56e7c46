// Package tune is the one home of tuning: the knobs read and written
// (Sysctls), the undo record kept before any write, the files that keep a
// change across reboots (Persister) and the drift of the live values from
// them, the managers that own knobs (kube-proxy), the tuners behind every
// surface (Local, Namespaced, Lab, and Control for an agent), and a
// lab's sysctls inside its namespace (Sysctls.Settle). The plan and the
// loop's judgement are model's (tuning.Diagnose); this package applies
// them, and tablefull tune's command line (cmd/tablefull/internal/tunecmd)
// drives it. It writes only the knobs, the files it manages and its state
// directory, and only when asked.
package tune

package cli

import (
	"io"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/labcmd"
)

// runLab is tablefull lab: the scenario checked, then built and shown
// (labcmd.Command.Run).
func runLab(o options, scenario string, lo labcmd.Command, w io.Writer) error {
	lo.Scenario = scenario
	if err := lo.Check(); err != nil {
		return usageError{err}
	}
	return lo.Run(labcmd.Env{Interval: o.interval, Roots: o.roots, StateDir: o.stateDir, Until: untilStopped}, w)
}

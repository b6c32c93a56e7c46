package labcmd

import (
	"fmt"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/sources/lab"
)

// Command is tablefull lab's: the scenario, its adjustments and how the
// lab is shown.
type Command struct {
	Scenario string
	lab.Options
	// Duration ends the lab (0: when the user quits); FixAfter raises
	// nf_conntrack_max to 16384 after it (0: never).
	Duration, FixAfter time.Duration
	// Headless prints a line per sample instead of the console.
	Headless bool
	// RecordTo records the lab's stream to this file ("": none).
	RecordTo string
}

// AddFlags registers tablefull lab's flags on fs, each filling c.
func (c *Command) AddFlags(fs *flag.FlagSet) {
	fs.DurationVar(&c.Duration, "duration", 0, "end the lab after `D` (default: when you quit)")
	fs.IntVar(&c.Workers, "workers", 0, "client workers (default: the scenario's)")
	fs.Float64Var(&c.Rate, "rate", 0, "requests per second over all workers (default: the scenario's)")
	fs.BoolVar(&c.Headless, "headless", false, "print one line per sample instead of the console")
	fs.StringVar(&c.RecordTo, "record", "", "record the lab's stream to `FILE` (e.g. to re-record the demo)")
	fs.Uint64Var(&c.Buckets, "buckets", 0, "the global hashsize during a lab that lowers nf_conntrack_max (default: max = buckets, the kernel's proportions; 262144 for the old labs)")
	fs.DurationVar(&c.FixAfter, "fix-after", 0, "raise nf_conntrack_max to 16384 after `D`, never lowering it (for recordings)")
}

// Check refuses a scenario that is not one and negative durations.
func (c Command) Check() error {
	if _, ok := lab.Scenarios[c.Scenario]; !ok {
		if c.Scenario == "" {
			return fmt.Errorf("which scenario? %s", strings.Join(lab.Names(), ", "))
		}
		return fmt.Errorf("no lab scenario %q: the scenarios are %s", c.Scenario, strings.Join(lab.Names(), ", "))
	}
	if c.Duration < 0 || c.FixAfter < 0 {
		return fmt.Errorf("--duration and --fix-after want positive durations (0: none)")
	}
	return nil
}

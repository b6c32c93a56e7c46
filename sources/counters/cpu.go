package counters

import (
	"fmt"
	"sort"

	"github.com/prometheus/procfs"

	"github.com/tablefull/tablefull/model"
)

// CPU reads per-CPU times from /proc/stat.
type CPU struct{ fs procfs.FS }

// NewCPU reads under procRoot (normally /proc).
func NewCPU(procRoot string) (*CPU, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("open procfs %s: %w", procRoot, err)
	}
	return &CPU{fs: fs}, nil
}

// Read returns cumulative times per CPU, ordered by CPU number.
func (c *CPU) Read() ([]model.CPUTimes, error) {
	st, err := c.fs.Stat()
	if err != nil {
		return nil, fmt.Errorf("read cpu times: %w", err)
	}
	out := make([]model.CPUTimes, 0, len(st.CPU))
	for id, t := range st.CPU {
		out = append(out, model.CPUTimes{CPU: int(id), User: t.User, Nice: t.Nice, System: t.System,
			Idle: t.Idle, IOWait: t.Iowait, IRQ: t.IRQ, SoftIRQ: t.SoftIRQ, Steal: t.Steal})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CPU < out[j].CPU })
	return out, nil
}

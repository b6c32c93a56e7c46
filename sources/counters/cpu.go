package counters

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// userHZ is the unit of /proc/stat's times: the kernel reports them in
// USER_HZ, 100 on every architecture Linux exports it for.
const userHZ = 100

// CPU reads per-CPU times from /proc/stat, kept open and read in place:
// its cpuN lines only, not the interrupt lines after them (thousands of
// numbers on a big host).
type CPU struct{ f *kernelfs.OpenFile }

// NewCPU reads under procRoot (normally /proc).
func NewCPU(procRoot string) (*CPU, error) {
	return &CPU{f: kernelfs.NewOpenFile(filepath.Join(procRoot, "stat"), 16<<10)}, nil
}

// Read returns cumulative times per CPU in seconds, ordered by CPU
// number.
func (c *CPU) Read() ([]model.CPUTimes, error) {
	b, err := c.f.Read()
	if err != nil {
		return nil, fmt.Errorf("read cpu times: %w", err)
	}
	var out []model.CPUTimes
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("cpu"))
		if !ok {
			if len(out) > 0 {
				break // the CPUs' lines are done
			}
			continue
		}
		var v [9]uint64 // the CPU's number, then user … steal
		n := 0
		for f := range fields(rest) {
			if n < len(v) {
				v[n] = parseDecimal(f)
			}
			n++
		}
		if n < len(v) || rest[0] == ' ' { // the total line ("cpu  …"), or a short one
			continue
		}
		var t [len(model.CPUModes)]float64
		for i := range t {
			t[i] = float64(v[1+i]) / userHZ
		}
		out = append(out, model.CPUTimesOf(int(v[0]), t))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read cpu times: no cpu lines in %s", c.f.Path())
	}
	slices.SortFunc(out, func(a, b model.CPUTimes) int { return a.CPU - b.CPU })
	return out, nil
}

// Close releases the file.
func (c *CPU) Close() { c.f.Close() }

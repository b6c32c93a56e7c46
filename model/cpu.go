package model

// CPUTimes are one CPU's cumulative times in seconds (from /proc/stat).
type CPUTimes struct {
	CPU     int     `json:"cpu"`
	User    float64 `json:"user"`
	Nice    float64 `json:"nice"`
	System  float64 `json:"system"`
	Idle    float64 `json:"idle"`
	IOWait  float64 `json:"iowait"`
	IRQ     float64 `json:"irq"`
	SoftIRQ float64 `json:"softirq"`
	Steal   float64 `json:"steal"`
}

// CPUModes name a CPU's times as /proc/stat orders its columns and
// node_exporter's mode label names them: the one order of the stream's
// rows, the collector's columns and Prometheus's modes.
var CPUModes = [...]string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}

// CPUTimesOf are CPU cpu's times, given in CPUModes' order.
func CPUTimesOf(cpu int, t [len(CPUModes)]float64) CPUTimes {
	return CPUTimes{CPU: cpu, User: t[0], Nice: t[1], System: t[2], Idle: t[3], IOWait: t[4], IRQ: t[5], SoftIRQ: t[6], Steal: t[7]}
}

// Times are c's times in CPUModes' order.
func (c CPUTimes) Times() [len(CPUModes)]float64 {
	return [...]float64{c.User, c.Nice, c.System, c.Idle, c.IOWait, c.IRQ, c.SoftIRQ, c.Steal}
}

// Total is the sum of all times.
func (c CPUTimes) Total() float64 {
	var sum float64
	for _, t := range c.Times() {
		sum += t
	}
	return sum
}

package tune

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WholeLookEvery is how many looks of a ManagerLook pass before one reads
// every process again, not only the new ones: a process that execs a
// manager keeps its pid (a container runtime's init becomes kube-proxy),
// so a pid judged once is judged again at that pace.
const WholeLookEvery = 10

// ManagerLook says whether a knob manager runs, cheaply enough to be asked
// every half-minute for as long as the process lives: FindManagers reads
// every process's name, where a look reads the names of the processes it
// has not seen yet and remembers the rest by pid.
type ManagerLook struct {
	// Proc is the procfs root the processes are listed under.
	Proc string
	// judged maps each pid seen at the last look to whether it was a
	// manager then.
	judged map[int]bool
	looks  int
}

// Present reports whether a manager runs now, by the looks' memory.
func (l *ManagerLook) Present() bool {
	dir, err := os.Open(l.Proc)
	if err != nil {
		return false
	}
	names, _ := dir.Readdirnames(-1) // unsorted, no stat of each
	dir.Close()
	if l.looks%WholeLookEvery == 0 {
		l.judged = nil
	}
	l.looks++
	now := make(map[int]bool, len(names))
	present := false
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		is, known := l.judged[pid]
		if !known {
			is = isManager(l.Proc, filepath.Join(l.Proc, name))
		}
		now[pid] = is
		present = present || is
	}
	l.judged = now // a pid gone is forgotten: its number may come back as another process
	return present
}

// isManager reports whether the process at procDir is a manager
// FindManagers would list.
func isManager(procRoot, procDir string) bool {
	comm, err := os.ReadFile(filepath.Join(procDir, "comm"))
	return err == nil && strings.TrimSpace(string(comm)) == "kube-proxy" && trustedManager(procRoot, procDir)
}

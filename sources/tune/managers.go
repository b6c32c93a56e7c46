package tune

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Manager is a program running on the host that owns a knob: it writes
// the knob when it starts, so a value set by hand lasts until it
// restarts.
type Manager struct {
	Name string
	PID  int
	// Owns maps each knob it writes to what it will write there, in
	// words ("max(32768 × CPUs, 131072)").
	Owns map[string]string
	// Where says where to set the value instead.
	Where string
}

// maxManagerConfig bounds a manager's config file as read.
const maxManagerConfig = 1 << 20

// FindManagers lists the knob managers running under procRoot: today
// kube-proxy, read from its command line and its --config file.
func FindManagers(procRoot string) []Manager {
	dirs, _ := filepath.Glob(filepath.Join(procRoot, "[0-9]*"))
	var out []Manager
	for _, d := range dirs {
		if !isManager(procRoot, d) {
			continue
		}
		argv, err := kernelfs.ReadBounded(filepath.Join(d, "cmdline"), 64<<10)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		out = append(out, kubeProxy(pid, strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00")))
	}
	return out
}

// kubeProxy reads what kube-proxy will write at its start: the flags win
// over its config file, as kube-proxy's own rule is.
func kubeProxy(pid int, argv []string) Manager {
	conf := map[string]string{}
	flags := map[string]string{}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "--") {
			value = argv[i+1]
			i++
		}
		flags[name] = value
	}
	where := "its --conntrack-* flags"
	if path := flags["config"]; path != "" {
		if b, err := readManagerConfig(path); err == nil {
			conf = conntrackSection(b)
		}
		where = "conntrack: in its --config " + safe.Text(flags["config"], 256) + " (or its --conntrack-* flags)"
	}
	pick := func(flag, key string) (string, bool) {
		if v, ok := flags[flag]; ok {
			return v, true
		}
		v, ok := conf[key]
		return v, ok
	}
	m := Manager{Name: "kube-proxy", PID: pid, Owns: map[string]string{}, Where: where}
	perCore, okPer := pick("conntrack-max-per-core", "maxPerCore")
	minimum, okMin := pick("conntrack-min", "min")
	if !okPer {
		perCore = "32768"
	}
	if !okMin {
		minimum = "131072"
	}
	if n, err := strconv.ParseUint(strings.TrimSpace(perCore), 10, 64); err == nil && n > 0 {
		m.Owns[knob.Max] = fmt.Sprintf("max(%s × CPUs, %s)", units.Int(n), number(minimum))
	}
	if v, ok := pick("conntrack-udp-timeout", "udpTimeout"); ok && strings.TrimSpace(v) != "" && strings.TrimSpace(v) != "0" && strings.TrimSpace(v) != "0s" {
		m.Owns[knob.UDPTimeout] = safe.Text(strings.TrimSpace(v), 32)
	}
	return m
}

// trustedManager reports whether the process at procDir may speak for a
// manager of the host's knobs: any user can name a process kube-proxy,
// so only one that runs as root (real and effective uid 0) in the user
// namespace tablefull runs in, from an executable root owns and only
// root can write, counts.
func trustedManager(procRoot, procDir string) bool {
	status, err := kernelfs.ReadBounded(filepath.Join(procDir, "status"), 64<<10)
	if err != nil {
		return false
	}
	root := false
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "Uid:" {
			root = f[1] == "0" && f[2] == "0"
		}
	}
	own, err1 := os.Readlink(filepath.Join(procDir, "ns", "user"))
	host, err2 := os.Readlink(filepath.Join(procRoot, "self", "ns", "user")) // tablefull's own: PID 1's may be unreadable even to root
	if !root || err1 != nil || err2 != nil || own != host {
		return false
	}
	exe, err := os.Stat(filepath.Join(procDir, "exe"))
	if err != nil {
		return false
	}
	st, ok := exe.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0 && exe.Mode().Perm()&0o022 == 0
}

// readManagerConfig reads a manager's config file as root without being
// steered: an absolute path only (a relative one would be resolved in
// the process's own directory), not through a symlink, opened without
// blocking (a FIFO), a regular file of bounded size.
func readManagerConfig(path string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("config %q: not an absolute path", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("open config: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat config: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxManagerConfig {
		return nil, fmt.Errorf("config %s: not a regular file of at most %d bytes", path, maxManagerConfig)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxManagerConfig+1))
	if err != nil || len(b) > maxManagerConfig {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return b, nil
}

// number renders a decimal count with separators, or sanitised text.
func number(s string) string {
	if n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64); err == nil {
		return units.Int(n)
	}
	return safe.Text(strings.TrimSpace(s), 32)
}

// conntrackSection reads the keys directly under a top-level
// "conntrack:" of a KubeProxyConfiguration (YAML), without a YAML
// library: "key: value" lines indented under it.
func conntrackSection(b []byte) map[string]string {
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if !indented {
			in = strings.HasPrefix(trimmed, "conntrack:")
			continue
		}
		if key, value, ok := strings.Cut(trimmed, ":"); in && ok {
			out[strings.TrimSpace(key)] = strings.Trim(strings.TrimSpace(value), `"'`)
		}
	}
	return out
}

// ManagerWarnings says, for each change a manager owns, that the value
// lasts until it restarts and where to set it instead.
func ManagerWarnings(ms []Manager, changes []tuning.Change) []string {
	owners := OwnerNotes(ms)
	var out []string
	for _, c := range changes {
		if note, ok := owners[c.Key]; ok {
			out = append(out, note)
		}
	}
	return out
}

// OwnerNotes says, for each knob a manager owns, who writes it, that a
// value set by hand lasts until that manager restarts, and where to set
// it instead.
func OwnerNotes(ms []Manager) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for key, what := range m.Owns {
			if _, ok := out[key]; !ok {
				out[key] = fmt.Sprintf("%s (pid %d) writes %s = %s at its start: a value set here lasts until it restarts; set it in %s",
					m.Name, m.PID, key, what, m.Where)
			}
		}
	}
	return out
}

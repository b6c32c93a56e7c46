package tune

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Persistence file names: sysctls and the module parameter are two
// mechanisms, so two files.
const (
	SysctlFile   = "99-tablefull.conf"
	ModprobeFile = "tablefull.conf"
	backupSuffix = ".tablefull-bak"
)

// Persister writes tuning to the files read at boot.
type Persister struct {
	SysctlDir   string // /etc/sysctl.d
	ModprobeDir string // /etc/modprobe.d
	// SysctlConf is /etc/sysctl.conf, which sysctl --system reads last.
	SysctlConf string
	// UdevDir (/etc/udev/rules.d) takes the rule that applies a module's
	// sysctls when it loads; TmpfilesDir (/etc/tmpfiles.d) the line that
	// writes a built-in one's hashsize at boot.
	UdevDir, TmpfilesDir string
	// Build is how nf_conntrack is in the kernel: what applies at boot.
	Build knob.ConntrackBuild
}

// FileChange is one file a persist would write: its path and old and new
// contents (Old is nil when the file does not exist).
type FileChange struct {
	Path     string
	Old, New []byte
}

// Changed reports whether writing would change the file.
func (f FileChange) Changed() bool { return !bytes.Equal(f.Old, f.New) }

// Plan computes the new contents of the files for changes, keeping every
// line tablefull does not own: the sysctl.d file, and what makes it and
// the hashsize apply at boot on p's kind of kernel (bootPlan).
//
// Every value is parsed and re-rendered here (tuning.CheckChanges) whoever
// checked it before: no text of a caller's reaches a file.
func (p Persister) Plan(changes []tuning.Change) ([]FileChange, error) {
	changes, err := tuning.CheckChanges(changes)
	if err != nil {
		return nil, err
	}
	sysctls := map[string]string{}
	var hashsize string
	for _, c := range changes {
		if c.Key == knob.Hashsize {
			hashsize = c.Proposed
		} else {
			sysctls[c.Key] = c.Proposed
		}
	}
	var out []FileChange
	if len(sysctls) > 0 {
		fc, err := readChange(filepath.Join(p.SysctlDir, SysctlFile))
		if err != nil {
			return nil, err
		}
		fc.New = setSysctls(fc.Old, sysctls)
		out = append(out, fc)
	}
	boot, err := p.bootPlan(len(sysctls) > 0, hashsize)
	if err != nil {
		return nil, err
	}
	return append(out, boot...), nil
}

func readChange(path string) (FileChange, error) {
	b, err := kernelfs.ReadBounded(path, maxConfFile)
	if errors.Is(err, fs.ErrNotExist) {
		return FileChange{Path: path}, nil
	}
	if err != nil {
		return FileChange{}, err
	}
	return FileChange{Path: path, Old: b}, nil
}

// maxConfFile bounds a drop-in file tablefull rewrites: it is read whole,
// never cut at a long line.
const maxConfFile = 4 << 20

// lines splits a file into its lines, however long, without the newlines.
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

const fileHeader = "# Written by tablefull (tablefull tune --persist). Lines for other keys are kept.\n"

// sysctlLine reads one line of a sysctl.d file, "key = value" (a leading
// "-" ignores errors; "#" and ";" start comments): the one parser of it.
func sysctlLine(line string) (key, value string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || t[0] == ';' {
		return "", "", false
	}
	key, value, ok = strings.Cut(strings.TrimLeft(t, "-"), "=")
	return strings.TrimSpace(key), strings.TrimSpace(value), ok
}

// setSysctls replaces the lines of keys it sets, keeps all others, and
// appends the keys that had no line.
func setSysctls(old []byte, set map[string]string) []byte {
	var b bytes.Buffer
	if len(old) == 0 {
		b.WriteString(fileHeader)
	}
	done := map[string]bool{}
	for _, line := range lines(old) {
		key, _, ok := sysctlLine(line)
		if v, mine := set[key]; ok && mine {
			if !done[key] {
				fmt.Fprintf(&b, "%s = %s\n", key, v)
				done[key] = true
			}
			continue
		}
		b.WriteString(line + "\n")
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] {
			fmt.Fprintf(&b, "%s = %s\n", k, set[k])
		}
	}
	return b.Bytes()
}

// setHashsize sets hashsize= on the "options nf_conntrack" line, keeping
// its other parameters and every other line.
func setHashsize(old []byte, v string) []byte {
	var b bytes.Buffer
	if len(old) == 0 {
		b.WriteString(fileHeader)
	}
	done := false
	for _, line := range lines(old) {
		f := strings.Fields(line)
		if !done && len(f) >= 2 && f[0] == "options" && f[1] == "nf_conntrack" {
			out := []string{"options", "nf_conntrack"}
			for _, p := range f[2:] {
				if !strings.HasPrefix(p, "hashsize=") {
					out = append(out, p)
				}
			}
			line = strings.Join(append(out, "hashsize="+v), " ")
			done = true
		}
		b.WriteString(line + "\n")
	}
	if !done {
		fmt.Fprintf(&b, "options nf_conntrack hashsize=%s\n", v)
	}
	return b.Bytes()
}

// Write writes each changed file atomically (temporary file, fsync,
// rename, fsync of the directory; its drop-in directory made if missing)
// after keeping a backup of the old one,
// keeping the file's mode. A file that would not change is not touched:
// running it twice changes nothing. It returns the files it wrote, also
// when a later one fails, so that an undo record can name them.
func (p Persister) Write(files []FileChange) ([]FileChange, error) {
	var written []FileChange
	for _, f := range files {
		if !f.Changed() {
			continue
		}
		if !p.manages(f.Path) {
			return written, fmt.Errorf("write %s: %w", f.Path, ErrNotManaged)
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil { // a drop-in directory a minimal root lacks
			return written, fmt.Errorf("write %s: %w", f.Path, err)
		}
		if f.Old != nil { // the backup is as private as the file it keeps
			perm := fs.FileMode(0o644)
			if st, err := os.Stat(f.Path); err == nil {
				perm = st.Mode().Perm()
			}
			if err := kernelfs.WriteAtomic(f.Path+backupSuffix, f.Old, perm); err != nil {
				return written, err
			}
		}
		if err := kernelfs.RewriteFile(f.Path, f.New); err != nil {
			return written, err
		}
		written = append(written, f)
	}
	return written, nil
}

// ErrNotManaged reports a path that is not one of the files a Persister
// writes: an undo record naming another file is refused.
var ErrNotManaged = errors.New("not a file tablefull manages")

// ErrChangedSince reports a file someone changed after tablefull wrote
// it: undo leaves it alone rather than overwrite their change.
var ErrChangedSince = errors.New("changed since tablefull wrote it")

// manages reports whether path is one of the files p writes.
func (p Persister) manages(path string) bool {
	return (p.SysctlDir != "" && path == filepath.Join(p.SysctlDir, SysctlFile)) ||
		(p.ModprobeDir != "" && path == filepath.Join(p.ModprobeDir, ModprobeFile)) ||
		(p.UdevDir != "" && path == filepath.Join(p.UdevDir, UdevFile)) ||
		(p.TmpfilesDir != "" && path == filepath.Join(p.TmpfilesDir, TmpfilesFile))
}

// Shadowed lists, for each sysctl key set, the files that would win over
// ours at boot: later-sorting files in the sysctl directory, and
// /etc/sysctl.conf, which sysctl --system reads last.
func (p Persister) Shadowed(changes []tuning.Change) []string {
	var warn []string
	files := p.laterSysctlFiles()
	for _, path := range files {
		b, err := kernelfs.ReadBounded(path, maxConfFile)
		if err != nil {
			continue
		}
		set := map[string]string{}
		for _, line := range lines(b) {
			if k, v, ok := sysctlLine(line); ok {
				set[k] = v
			}
		}
		for _, c := range changes {
			if v, ok := set[c.Key]; ok && c.Key != knob.Hashsize {
				warn = append(warn, fmt.Sprintf("%s sets %s = %s and is read after %s: it wins at boot", path, c.Key, v, SysctlFile))
			}
		}
	}
	return warn
}

// laterSysctlFiles are the files that win over tablefull's at boot:
// later-sorting files in the sysctl directory, and /etc/sysctl.conf.
func (p Persister) laterSysctlFiles() []string {
	entries, _ := os.ReadDir(p.SysctlDir)
	var files []string
	for _, e := range entries {
		if path := filepath.Join(p.SysctlDir, e.Name()); strings.HasSuffix(e.Name(), ".conf") && e.Name() > SysctlFile && path != p.SysctlConf {
			files = append(files, path)
		}
	}
	if p.SysctlConf != "" {
		files = append(files, p.SysctlConf)
	}
	return files
}

// Restore puts back the contents Write replaced (or removes a file that
// did not exist before). It is the file half of an undo, and it trusts
// no path: only the files p manages are touched, and only while they
// still hold what tablefull wrote.
func (p Persister) Restore(files []FileChange) error {
	for _, f := range files {
		if !f.Changed() {
			continue
		}
		if !p.manages(f.Path) {
			return fmt.Errorf("restore %s: %w", f.Path, ErrNotManaged)
		}
		now, err := kernelfs.ReadBounded(f.Path, maxConfFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !bytes.Equal(now, f.New) && !bytes.Equal(now, f.Old) {
			return fmt.Errorf("restore %s: %w (its backup is %s)", f.Path, ErrChangedSince, f.Path+backupSuffix)
		}
		if f.Old == nil {
			if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", f.Path, err)
			}
			continue
		}
		if err := kernelfs.RewriteFile(f.Path, f.Old); err != nil {
			return err
		}
	}
	return nil
}

package house

import (
	"bytes"
	stdflag "flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// updateNotice rewrites NOTICE from the modules the binary links.
var updateNotice = stdflag.Bool("update-notice", false, "rewrite NOTICE from the modules cmd/tablefull links")

// licencePrefixes begin the names a module's licences and notices go by
// (LICENSE, LICENSE-MIT, COPYING, NOTICE…), in any case.
var licencePrefixes = []string{"LICENSE", "LICENCE", "COPYING", "NOTICE"}

// licenceTexts are the licence and notice files at the top of dir, by name.
func licenceTexts(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var texts []string
	for _, e := range entries {
		for _, p := range licencePrefixes {
			if strings.HasPrefix(strings.ToUpper(e.Name()), p) && e.Type().IsRegular() {
				if text, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
					texts = append(texts, string(text))
				}
			}
		}
	}
	return texts
}

// TestNoticeListsEveryModule: NOTICE holds tablefull's notice and the
// licence of every module the binary links (and Go's own, for its
// standard library), as go list -deps finds them: a new dependency
// cannot ship without its licence. go test ./cmd/tablefull
// -update-notice rewrites it.
func TestNoticeListsEveryModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", "github.com/tablefull/tablefull/cmd/tablefull").Output()
	if err != nil {
		t.Skipf("go list: %v (needs the go command and the module cache)", err)
	}
	seen := map[string]bool{}
	var mods [][3]string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 3 && !seen[f[0]] {
			seen[f[0]] = true
			mods = append(mods, [3]string{f[0], f[1], f[2]})
		}
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i][0] < mods[j][0] })
	var b bytes.Buffer
	b.WriteString("tablefull\nCopyright 2026 the tablefull developers\nLicensed under the Apache License, Version 2.0 (LICENSE).\n\n")
	fmt.Fprintf(&b, "The tablefull binary links the Go standard library and %d Go modules. Their licences follow, as each\nmodule ships them (written by go test ./cmd/tablefull/rooms/house -update-notice).\n", len(mods))
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goLicence, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "LICENSE"))
	if err != nil {
		t.Fatalf("Go's own licence: %v", err)
	}
	fmt.Fprintf(&b, "\n==== the Go standard library (%s) ====\n\n%s", runtime.Version(), goLicence)
	for _, m := range mods {
		texts := licenceTexts(m[2])
		if len(texts) == 0 {
			t.Errorf("%s %s ships no licence file (%s…)", m[0], m[1], strings.Join(licencePrefixes, "…, "))
		}
		fmt.Fprintf(&b, "\n==== %s %s ====\n\n%s", m[0], m[1], strings.Join(texts, "\n"))
	}
	if *updateNotice {
		if err := os.WriteFile("../../../../NOTICE", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile("../../../../NOTICE")
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Errorf("NOTICE is not the licences of the modules cmd/tablefull links (go test ./cmd/tablefull/rooms/house -update-notice rewrites it)")
	}
}

package install

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// watched are the trees a package of ours may touch: its files, and /etc
// (which it must leave as it found it).
var watched = []string{"/etc", "/usr/bin", "/usr/lib/systemd/system", "/usr/share/tablefull", "/usr/share/man/man1", "/usr/share/doc/tablefull"}

// treeListing is every path under the watched trees with its size and
// mode (what dpkg's own database holds is dpkg's, not the package's).
func treeListing(t *testing.T) []string {
	var out []string
	for _, root := range watched {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			size := info.Size()
			if info.IsDir() {
				size = 0
			}
			out = append(out, fmt.Sprintf("%s %v %d", p, info.Mode(), size))
			return nil
		})
	}
	return out
}

// TestDebianPackage builds the package twice (the same bytes), installs
// it on this machine, checks the binary, the unit and the man page as
// installed, enables the exporter as an operator would, and removes and
// purges it: the watched trees are then as they were before.
// lintianTags matches a line of lintian's findings (E:, W:, I:, P:, X:).
var lintianTags = regexp.MustCompile(`(?m)^[EWIPX]: `)

func TestDebianPackage(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Heavy: true}) // touches no conntrack knob, builds twice: beside the boot test, after every room's serial ones
	kernelfstest.Need(t, "dpkg -i")
	for _, tool := range []string{"dpkg-deb", "dpkg", "systemd-analyze", "man", "systemctl", "lintian"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (make deps)", tool)
		}
	}
	if exec.Command("dpkg", "-s", "tablefull").Run() == nil {
		t.Skip("a tablefull package is installed here: not replacing it")
	}
	if _, err := os.Lstat("/etc/systemd/system/multi-user.target.wants/tablefull-exporter.service"); err == nil {
		t.Skip("a tablefull-exporter unit is enabled here: not touching it")
	}
	dir := t.TempDir()
	deb := clitest.BuildPackage(t, filepath.Join(dir, "a"))
	again := clitest.BuildPackage(t, filepath.Join(dir, "b"))
	sum := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))
	}
	if !strings.HasPrefix(filepath.Base(deb), "tablefull_1.2.3+git4.test_") || filepath.Ext(deb) != ".deb" {
		t.Errorf("package named %s", filepath.Base(deb))
	}
	if sum(deb) != sum(again) {
		t.Error("two builds of the same tree differ: the package is not reproducible")
	}
	// lintian at its most pedantic: only the override the package ships
	// (a Go binary is static) may quiet it.
	lint := exec.Command("lintian", "--pedantic", "--fail-on", "error,warning,info,pedantic", deb)
	if out, err := lint.CombinedOutput(); err != nil || lintianTags.Match(out) {
		t.Errorf("lintian --pedantic %s: %v\n%s", filepath.Base(deb), err, out)
	}
	contents, err := exec.Command("dpkg-deb", "-c", deb).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"./usr/bin/tablefull", "./usr/lib/systemd/system/tablefull-exporter.service", "./usr/share/man/man1/tablefull.1.gz",
		"./usr/share/tablefull/tablefull.rules.yml", "./usr/share/tablefull/tablefull-fleet.rules.yml", "./usr/share/tablefull/tablefull-exporter-notrack.nft", "./usr/share/tablefull/tablefull-scraper-notrack.nft", "./usr/share/doc/tablefull/copyright",
		"./usr/share/doc/tablefull/NOTICE.gz", "./usr/share/doc/tablefull/changelog.gz", "./usr/share/doc/tablefull/docs/tuning.md.gz", "./usr/share/lintian/overrides/tablefull"} {
		if !strings.Contains(string(contents), want) {
			t.Errorf("the package lacks %s", want)
		}
	}
	if first, _, _ := strings.Cut(string(contents), "\n"); !strings.HasPrefix(first, "drwxr-xr-x") {
		t.Errorf("the archive's first entry is %q, want ./ as drwxr-xr-x", first)
	}
	if strings.Contains(string(contents), " ./etc/") {
		t.Errorf("the package ships files in /etc:\n%s", contents)
	}

	before := treeListing(t)
	t.Cleanup(func() { // even when a check fails: nothing of ours stays installed
		exec.Command("dpkg", "--purge", "tablefull").Run()
		os.Remove("/etc/systemd/system/multi-user.target.wants/tablefull-exporter.service")
	})
	if out, err := exec.Command("dpkg", "-i", deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg -i: %v\n%s", err, out)
	}
	if out, err := exec.Command("/usr/bin/tablefull", "--version").Output(); err != nil || !strings.HasPrefix(string(out), "tablefull 1.2.3-4-gtest (revision ") || strings.Contains(string(out), "revision unknown") {
		t.Errorf("tablefull --version: %q %v", out, err)
	}
	unit := "/usr/lib/systemd/system/tablefull-exporter.service"
	if out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}
	man := exec.Command("man", "--warnings", "-l", "/usr/share/man/man1/tablefull.1.gz")
	man.Env = append(os.Environ(), "MANWIDTH=100", "PAGER=cat")
	page, err := man.CombinedOutput()
	if err != nil || !strings.Contains(string(page), "--web.listen-address") || strings.Contains(string(page), "warning") {
		t.Errorf("man -l the installed page: %v\n%.500s", err, page)
	}
	if exec.Command("systemctl", "is-enabled", "--quiet", "tablefull-exporter").Run() == nil {
		t.Error("the exporter's unit is enabled by the install: it must wait for the operator")
	}
	// The operator enables it (offline here: a link in /etc).
	if out, err := exec.Command("systemctl", "enable", "tablefull-exporter").CombinedOutput(); err != nil {
		t.Fatalf("systemctl enable: %v\n%s", err, out)
	}
	if out, err := exec.Command("dpkg", "-r", "tablefull").CombinedOutput(); err != nil {
		t.Fatalf("dpkg -r: %v\n%s", err, out)
	}
	if diff := listingDiff(before, treeListing(t)); diff != "" {
		t.Errorf("dpkg -r left or removed files:\n%s", diff)
	}
	if out, err := exec.Command("dpkg", "--purge", "tablefull").CombinedOutput(); err != nil {
		t.Fatalf("dpkg --purge: %v\n%s", err, out)
	}
	if diff := listingDiff(before, treeListing(t)); diff != "" {
		t.Errorf("dpkg --purge left or removed files:\n%s", diff)
	}
}

// listingDiff says which entries one listing has and the other lacks.
func listingDiff(before, after []string) string {
	var b strings.Builder
	for _, p := range after {
		if !slices.Contains(before, p) {
			b.WriteString("+ " + p + "\n")
		}
	}
	for _, p := range before {
		if !slices.Contains(after, p) {
			b.WriteString("- " + p + "\n")
		}
	}
	return b.String()
}

// TestPackageVersionsSort: without tags a package's version carries its
// commit's time before its hash, so a later commit's package sorts after
// an earlier one's (a hash alone did not: 0.0~gitdce915a > 0.0~git8fcb70e);
// a tag's version is kept, and both sort below the first release.
func TestPackageVersionsSort(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("needs dpkg")
	}
	version := func(epoch, v string) string {
		cmd := exec.Command("deploy/debian/build", v, "--print-version")
		cmd.Dir = "../../../.."
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+epoch)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("build %s --print-version: %v", v, err)
		}
		return strings.TrimSpace(string(out))
	}
	older, newer := version("1700000000", "dce915a"), version("1700000100", "8fcb70e-dirty")
	after := version("0", "v1.2.3-4-gabc")
	for _, c := range [][3]string{{newer, "gt", older}, {after, "eq", "1.2.3+git4.abc"}, {older, "lt", "0.1"},
		{after, "gt", version("0", "v1.2.3")}, {after, "lt", version("0", "v1.2.4")}, {version("0", "v1.2.3-10-gdef"), "gt", version("0", "v1.2.3-9-gabc")}} {
		if err := exec.Command("dpkg", "--compare-versions", c[0], c[1], c[2]).Run(); err != nil {
			t.Errorf("dpkg --compare-versions %s %s %s is false", c[0], c[1], c[2])
		}
	}
}

// TestPackageChangelogFromTags: the package's changelog has this build's
// entry, then one a release tag reachable from it, newest first, each
// dated by its commit; dpkg-parsechangelog reads it where installed.
func TestPackageChangelogFromTags(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--shared", "../../../..", dir).CombinedOutput(); err != nil {
		t.Skipf("no git clone of this tree: %v %s", err, out)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("tag", "-a", "-m", "first", "v0.1.0", "HEAD~2")
	git("tag", "-a", "-m", "second", "v0.2.0", "HEAD~1")
	described := git("describe", "--tags", "--always")
	script, err := os.ReadFile("../../../../deploy/debian/build") // this tree's, committed or not
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "deploy/debian/build"), script, 0o755)
	cmd := exec.Command("deploy/debian/build", described, "--print-changelog")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("build --print-changelog: %v", err)
	}
	var versions []string
	for _, m := range regexp.MustCompile(`(?m)^tablefull \(([^)]+)\) unstable; urgency=medium$`).FindAllStringSubmatch(string(out), -1) {
		versions = append(versions, m[1])
	}
	if want := []string{"0.2.0+git1." + git("rev-parse", "--short", "HEAD"), "0.2.0", "0.1.0"}; !slices.Equal(versions, want) {
		t.Errorf("changelog entries %q, want %q:\n%s", versions, want, out)
	}
	if _, err := exec.LookPath("dpkg-parsechangelog"); err == nil {
		path := filepath.Join(dir, "changelog")
		os.WriteFile(path, out, 0o644)
		if parsed, err := exec.Command("dpkg-parsechangelog", "-l", path, "--all", "-S", "Version").CombinedOutput(); err != nil || strings.Fields(string(parsed))[0] != versions[0] {
			t.Errorf("dpkg-parsechangelog: %v %s", err, parsed)
		}
	}
}

package lab

import (
	"fmt"
	"io"
)

// Run builds scenario name, says on w what it built and what to look
// for, and shows it with show (the console, or headless lines) until
// show returns; the host is restored on every way out, a panic's too.
func Run(name string, o Options, w io.Writer, show func(*Lab) error) (err error) {
	l, err := Start(name, o)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			l.Close()
			panic(r)
		}
		if cerr := l.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("restore the host: %w", cerr)
		}
	}()
	if l.Note != "" {
		fmt.Fprintln(w, l.Note)
	}
	fmt.Fprintf(w, "lab %s: %s\nlook for: %s\n", name, l.Scenario.What, l.Scenario.LookFor)
	if p := l.Proportions(); p != "" {
		fmt.Fprintf(w, "proportions: %s\n", p)
	}
	return show(l)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
)

// census prints what fills the table of this network namespace.
func census(asJSON bool, w io.Writer) error {
	start := time.Now()
	c, err := sources.CensusDump{Timeout: 60 * time.Second}.Run(10)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	approx := ""
	if c.Approximate {
		approx = " (approximate: the table changed during the dump, or many addresses)"
	}
	fmt.Fprintf(w, "%s entries in %s%s\n", model.Int(uint64(c.Total)), time.Since(start).Round(time.Millisecond), approx)
	printMap(w, "protocol", c.ByProto)
	printMap(w, "tcp state", c.TCPState)
	printTop(w, "top destination ports", c.TopPorts)
	printTop(w, "top sources", c.TopSources)
	printTop(w, "top destinations", c.TopDests)
	return nil
}

func printMap(w io.Writer, title string, m map[string]int) {
	var cs []model.Count
	for k, v := range m {
		cs = append(cs, model.Count{Key: k, N: v})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].N > cs[j].N || (cs[i].N == cs[j].N && cs[i].Key < cs[j].Key) })
	printTop(w, title, cs)
}

func printTop(w io.Writer, title string, cs []model.Count) {
	fmt.Fprintf(w, "%s:\n", title)
	if len(cs) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-40s %10s\n", c.Key, model.Int(uint64(c.N)))
	}
}

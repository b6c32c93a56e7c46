package verdict

import (
	"fmt"
	"strings"
)

// Words is a table of templates by clause key: the one place a clause's
// words are written. Rules name a clause and give its facts; a test or a
// document can list every sentence a table holds.
type Words map[string]string

// Say is the clause key of weight w: its template from ws, its {name}s
// filled by facts. A key ws lacks renders as "{key?}" and is a fault of
// the clause, never silently empty.
func (ws Words) Say(w Weight, key string, facts ...Fact) Clause {
	t, ok := ws[key]
	if !ok {
		return Clause{Key: key, Facts: facts, Weight: w, missing: true}
	}
	return Clause{Key: key, Template: t, Facts: facts, Weight: w}
}

// Merge is one table of several; a key two of them give is refused,
// since a clause has one set of words.
func Merge(tables ...Words) (Words, error) {
	out := Words{}
	for _, t := range tables {
		for k, v := range t {
			if _, dup := out[k]; dup {
				return nil, fmt.Errorf("clause key %q: written twice", k)
			}
			out[k] = v
		}
	}
	return out, nil
}

// MustMerge is Merge of tables fixed at build time, where a duplicate
// key is the program's defect (a package's tests find it first).
func MustMerge(tables ...Words) Words {
	out, err := Merge(tables...)
	if err != nil {
		panic(err)
	}
	return out
}

// Part is one piece of a composed clause: its words' key and its facts.
// Nth, when set, tells apart pieces of one key said more than once (the
// terms of a sum): each {name} of its words, and each fact's name, reads
// "name Nth".
type Part struct {
	Key   string
	Facts []Fact
	Nth   string
}

// Compose is one clause of parts said in order, each part's words from
// ws: a reason whose pieces depend on what was measured, its words still
// all in the table. A part whose key ws lacks makes the clause a fault.
func (ws Words) Compose(w Weight, key string, parts ...Part) Clause {
	c := Clause{Key: key, Weight: w}
	var b strings.Builder
	for _, p := range parts {
		t, ok := ws[p.Key]
		if !ok {
			return Clause{Key: p.Key, Weight: w, missing: true}
		}
		facts := p.Facts
		if p.Nth != "" {
			t = nth(t, p.Nth)
			facts = make([]Fact, len(p.Facts))
			for i, f := range p.Facts {
				f.Name += " " + p.Nth
				facts[i] = f
			}
		}
		b.WriteString(t)
		c.Facts = append(c.Facts, facts...)
	}
	c.Template = b.String()
	return c
}

// nth renames each {name} of template t to {name n}.
func nth(t, n string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i+j] + " " + n + "}")
		t = t[i+j+1:]
	}
}

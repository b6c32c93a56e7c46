package verdict

import (
	"fmt"
	"strings"
)

// Weight is what a clause is to the reader, and so what a narrow screen
// keeps: the lead and the numbers first, then the class, who, the fix;
// the explanation goes first when room runs out.
type Weight int

// Weights, kept longest first.
const (
	Lead Weight = iota
	Numbers
	Class
	Who
	Fix
	Explain
)

// Clause is one part of a verdict's evidence: a template of words whose
// {name}s are its facts. Sep is what joins it to the clause before
// ("; " when empty).
type Clause struct {
	Key      string `json:"key"`
	Template string `json:"-"`
	Facts    []Fact `json:"facts,omitempty"`
	Weight   Weight `json:"-"`
	Sep      string `json:"-"`
	// missing is set for a key its table has no words for.
	missing bool
}

// After sets what joins c to the clause before it: ", ", ": ", " ".
func (c Clause) After(sep string) Clause {
	c.Sep = sep
	return c
}

// fact is c's fact called name.
func (c Clause) fact(name string) (Fact, bool) {
	for _, f := range c.Facts {
		if f.Name == name {
			return f, true
		}
	}
	return Fact{}, false
}

// render writes c's template with each {name} replaced by say(fact).
func (c Clause) render(say func(Fact) string) string {
	if c.missing {
		return "{" + c.Key + "?}"
	}
	var b strings.Builder
	t := c.Template
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		name := t[i+1 : i+j]
		if f, ok := c.fact(name); ok {
			b.WriteString(say(f))
		} else {
			b.WriteString("{" + name + "?}")
		}
		t = t[i+j+1:]
	}
}

// Text is c in plain words.
func (c Clause) Text() string { return c.render(Fact.String) }

// Faults are the ways c disagrees with itself: a {name} with no fact, a
// fact its template never prints, a product that does not compute.
func (c Clause) Faults() []string {
	if c.missing {
		return []string{fmt.Sprintf("%s: no template in its table of words", c.Key)}
	}
	var out []string
	used := map[string]bool{}
	for t := c.Template; ; {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}')
		if i < 0 || j < 0 {
			break
		}
		name := t[i+1 : i+j]
		used[name] = true
		if _, ok := c.fact(name); !ok {
			out = append(out, fmt.Sprintf("%s: {%s} has no fact", c.Key, name))
		}
		t = t[i+j+1:]
	}
	for _, f := range c.Facts {
		if !used[f.Name] && c.Key != sentKey {
			out = append(out, fmt.Sprintf("%s: fact %s is never printed", c.Key, f.Name))
		}
		out = append(out, f.faults()...)
	}
	return out
}

// Prose is a clause of words with no facts: what a document sent (a
// decoded verdict), or a test's stand-in for a rule's clause.
func Prose(key, text string) Clause {
	return Clause{Key: key, Template: strings.NewReplacer("{", "(", "}", ")").Replace(text)}
}

// Sent is the clause a decoded document's words come back as, holding
// the facts sent beside them: read, not checked.
func Sent(text string, facts []Fact) Clause {
	c := Prose(sentKey, text)
	c.Facts = facts
	return c
}

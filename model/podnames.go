package model

// NamePods names every pod the sample knows by its UID with the name
// name finds for that UID ("namespace/name"; "" keeps the UID): the
// namespaces' rows, the census's owners, the probes' connections and
// drops, the pressed listeners. It runs once where the sample is made,
// so every surface after it (the console, the verdicts, the exporter's
// labels, the report, a recording) draws the same name.
func (s *Sample) NamePods(name func(uid string) string) {
	if name == nil {
		return
	}
	rename := func(o *Owner) {
		if o.Kind == "pod" {
			if n := name(o.Group); n != "" {
				o.Group = n
			}
		}
	}
	if ns := s.Namespaces; ns != nil {
		for i := range ns.Rows {
			if r := &ns.Rows[i]; r.Kind == "pod" {
				if n := name(r.Name); n != "" {
					r.Name = n
				}
			}
		}
	}
	s.Census.NamePods(name)
	if w := s.Who; w != nil {
		for i := range w.Conns {
			rename(&w.Conns[i].Owner)
		}
		for i := range w.Drops {
			rename(&w.Drops[i].Owner)
		}
	}
	if l := s.Listeners; l != nil {
		for i := range l.Pressed {
			rename(&l.Pressed[i].Owner)
		}
	}
}

// NamePods names the pods among the census's owners, as Sample.NamePods
// does; a nil census or name does nothing.
func (c *Census) NamePods(name func(uid string) string) {
	if c == nil || c.Owners == nil || name == nil {
		return
	}
	for i := range c.Owners.Top {
		if o := &c.Owners.Top[i].Owner; o.Kind == "pod" {
			if n := name(o.Group); n != "" {
				o.Group = n
			}
		}
	}
}

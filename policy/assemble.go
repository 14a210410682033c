package policy

// As returns c known by another name: the compiled statements are shared,
// not copied. A document's name shows in explanations (StatementRef.Policy),
// so a document compiled once and used under several names, as a batch of
// requests does, is renamed at each use rather than compiled again.
func (c *Compiled) As(name string) *Compiled {
	return c.At(name, c.doc.level)
}

// At returns c known by name at organization level level (which shows in
// explanations of SCPs and RCPs; 0 for other kinds): c itself when it is
// already, else a copy sharing the compiled statements. A compiled
// document is never changed, so one may serve any number of Policies.
func (c *Compiled) At(name string, level int) *Compiled {
	if c.doc.name == name && c.doc.level == level {
		return c
	}
	placed := &struct {
		c Compiled
		d compiledDoc
	}{d: *c.doc}
	placed.d.name, placed.d.level = name, level
	placed.c.doc = &placed.d
	return &placed.c
}

// Assemble returns Policies from documents compiled one by one: the
// organization levels of SCPs and RCPs (each document compiled as SCP or RCP)
// and the per-principal parts. It decides exactly as Compile does for the
// same documents, and compiles nothing.
func Assemble(scps, rcps [][]*Compiled, parts Parts) *Policies {
	p := (&Policies{}).With(parts)
	p.scps = assembleLevels(scps)
	p.rcps = assembleLevels(rcps)
	return p
}

// assembleLevels is compileLevels for compiled documents: each takes its
// level's index, copied only when it has another (see At).
func assembleLevels(levels [][]*Compiled) [][]*compiledDoc {
	if len(levels) == 0 {
		return nil
	}
	out := make([][]*compiledDoc, len(levels))
	for li, level := range levels {
		docs := make([]*compiledDoc, len(level))
		for i, c := range level {
			docs[i] = c.At(c.doc.name, li).doc
		}
		out[li] = docs
	}
	return out
}

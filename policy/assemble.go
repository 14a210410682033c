package policy

// As returns c known by another name: the compiled statements are shared,
// not copied. A document's name shows in explanations (StatementRef.Policy),
// so a document compiled once and used under several names, as a batch of
// requests does, is renamed at each use rather than compiled again.
func (c *Compiled) As(name string) *Compiled {
	d := *c.doc
	d.name = name
	return &Compiled{doc: &d}
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
// level's index.
func assembleLevels(levels [][]*Compiled) [][]*compiledDoc {
	var out [][]*compiledDoc
	for li, level := range levels {
		var docs []*compiledDoc
		for _, c := range level {
			d := *c.doc
			d.level = li
			docs = append(docs, &d)
		}
		out = append(out, docs)
	}
	return out
}

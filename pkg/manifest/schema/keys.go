package schema

// keySet holds the keys of a mapping met so far and their lines: in place while there
// are few (most mappings of a manifest have a handful of keys), in a map past that.
type keySet struct {
	few  [fewKeys]keyLine // the first keys, in place: most mappings have few
	n    int              // of few in use
	many map[string]int
}

type keyLine struct {
	key  string
	line int
}

const fewKeys = 16

func (s *keySet) get(k string) (int, bool) {
	if s.many != nil {
		l, ok := s.many[k]
		return l, ok
	}
	for _, e := range s.few[:s.n] {
		if e.key == k {
			return e.line, true
		}
	}
	return 0, false
}

func (s *keySet) set(k string, line int) {
	if s.many == nil && s.n < fewKeys {
		for i := range s.few[:s.n] {
			if s.few[i].key == k {
				s.few[i].line = line
				return
			}
		}
		s.few[s.n] = keyLine{k, line}
		s.n++
		return
	}
	if s.many == nil {
		s.many = make(map[string]int, 2*fewKeys)
		for _, e := range s.few[:s.n] {
			s.many[e.key] = e.line
		}
	}
	s.many[k] = line
}

package manifest

// keySet holds the keys of a mapping met so far and their lines: in a slice while there
// are few (most mappings of a manifest have a handful of keys), in a map past that.
type keySet struct {
	few  []keyLine
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
	for _, e := range s.few {
		if e.key == k {
			return e.line, true
		}
	}
	return 0, false
}

func (s *keySet) set(k string, line int) {
	if s.many == nil && len(s.few) < fewKeys {
		for i := range s.few {
			if s.few[i].key == k {
				s.few[i].line = line
				return
			}
		}
		s.few = append(s.few, keyLine{k, line})
		return
	}
	if s.many == nil {
		s.many = make(map[string]int, 2*fewKeys)
		for _, e := range s.few {
			s.many[e.key] = e.line
		}
	}
	s.many[k] = line
}

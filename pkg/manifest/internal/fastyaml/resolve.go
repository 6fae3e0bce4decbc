package fastyaml

import "strconv"

// resolve gives the tag yaml.v3 resolves a plain scalar to, for the scalars whose tag is
// certain; false for the others (numbers other than decimal integers, timestamps, merge
// keys, special floats), which are left to yaml.v3.
func resolve(s string) (string, bool) {
	if s == "" {
		return "!!null", true
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case "~", "null", "Null", "NULL":
		return "!!null", true
	}
	switch c := s[0]; {
	case c == '<':
		return "", false // "<<" is a merge key; other strings starting so are rare
	case c == '.':
		// yaml.v3 tries these as floats (.5, .inf): a string for certain only with a
		// character no float holds.
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-', c == '_',
				c == 'i', c == 'I', c == 'n', c == 'N', c == 'f', c == 'F', c == 'a', c == 'A':
			default:
				return "!!str", true
			}
		}
		return "", false
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		return resolveNumeric(s)
	}
	// yaml.v3 looks other scalars up only among the words above: they are strings.
	return "!!str", true
}

// resolveNumeric handles plain scalars starting with a digit or a sign, which yaml.v3
// tries as a timestamp, an integer in any base (with underscores), and a float.
func resolveNumeric(s string) (string, bool) {
	digits := s
	if s[0] == '+' || s[0] == '-' {
		digits = s[1:]
		if digits != "" && digits[0] == '.' {
			return "", false // "-.inf" and "+.Inf" are floats in yaml.v3's table
		}
	}
	if decimal(digits) {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return "!!int", true
		}
		return "", false
	}
	// A string for certain: a character no number or timestamp holds (any but digits,
	// hexadecimal letters, base prefixes, signs, underscores, dots and the timestamp's
	// separators).
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F',
			c == 'x', c == 'X', c == 'o', c == 'O', c == '_', c == '+', c == '-', c == '.',
			c == ':', c == ' ', c == 't', c == 'T', c == 'z', c == 'Z':
		default:
			return "!!str", true
		}
	}
	// Digits and two dots or more (an IP address): no integer, float or timestamp.
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			dots++
		case c < '0' || c > '9':
			return "", false
		}
	}
	if dots >= 2 {
		return "!!str", true
	}
	return "", false
}

// decimal reports a non-empty run of digits without a leading zero (or "0").
func decimal(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

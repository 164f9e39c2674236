// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"strings"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// FieldValues appends to dst the values of the named top-level fields of a document written by Marshal, as
// Unmarshal would give them (nil for a field the document does not have): what the merge of an $in's reads compares
// (the sqlite backend's embedded_pushdown_merge.go), for every row it looks at. It parses only those fields: the schema
// (`$s`) through the schema caches, the other fields skipped, and it stops once it has them all. Nothing of data is
// kept.
func FieldValues(dst []any, data []byte, fields []string) ([]any, error) {
	start := len(dst)
	for range fields {
		dst = append(dst, nil)
	}

	found := 0
	p := &onePass{data: data, inPlace: true}

	var sch *schema

	p.skipSpace()

	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return dst, lazyerrors.Errorf("not a document")
	}

	p.pos++

	for found < len(fields) || sch == nil {
		p.skipSpace()

		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			break // an empty document, or one without some of the fields
		}

		key, err := p.value()
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		if key.kind != '"' {
			return dst, lazyerrors.Errorf("object key is not a string at %d", p.pos)
		}

		if p.skipSpace(); p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return dst, lazyerrors.Errorf("':' expected at %d", p.pos)
		}

		p.pos++
		p.skipSpace()

		at := -1

		for i, f := range fields {
			if f == key.str {
				at = i
				break
			}
		}

		switch {
		case key.str == "$s" && sch == nil:
			begin := p.pos

			if recent := recentSchemaAt(p.data[begin:]); recent != nil {
				sch = recent.sch
				p.pos += len(recent.text)
			} else {
				if err = p.skipObject(); err != nil {
					return dst, lazyerrors.Error(err)
				}

				if sch, err = cachedSchema(p.data[begin:p.pos]); err != nil {
					return dst, lazyerrors.Error(err)
				}

				rememberSchema(p.data[begin:p.pos], sch)
			}

		case at >= 0 && sch != nil:
			v, err := p.value()
			if err != nil {
				return dst, lazyerrors.Error(err)
			}

			e := sch.Properties[key.str]
			if e == nil {
				return dst, lazyerrors.Errorf("sjson: no schema for field %q", key.str)
			}

			value, err := valueOf(&v, e)
			if err != nil {
				return dst, lazyerrors.Error(err)
			}

			if s, isString := value.(string); isString {
				value = strings.Clone(s) // read in place: kept past data
			}

			if dst[start+at] == nil {
				found++
			}

			dst[start+at] = value

		case at >= 0:
			// Marshal writes `$s` first; a field before it cannot be typed yet.
			return dst, lazyerrors.Errorf("sjson: field %q before the schema", key.str)

		default:
			if err = p.skipValue(); err != nil {
				return dst, lazyerrors.Error(err)
			}
		}

		done, err := p.next('}')
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		if done {
			break
		}
	}

	if sch == nil {
		return dst, lazyerrors.Errorf("schema is not set")
	}

	return dst, nil
}

// skipValue moves past one JSON value without building it (strings, nesting and escapes respected).
func (p *onePass) skipValue() error {
	p.skipSpace()

	if p.pos >= len(p.data) {
		return lazyerrors.Errorf("unexpected end of JSON")
	}

	switch p.data[p.pos] {
	case '{', '[':
		depth := 0

		for ; p.pos < len(p.data); p.pos++ {
			switch p.data[p.pos] {
			case '"':
				if err := p.skipString(); err != nil {
					return err
				}

				p.pos-- // the loop's step moves past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.pos++
					return nil
				}
			}
		}

		return lazyerrors.Errorf("unterminated value")

	case '"':
		return p.skipString()

	default:
		for p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}

			p.pos++
		}

		return nil
	}
}

// skipString moves past a JSON string (p.pos at its opening quote).
func (p *onePass) skipString() error {
	for p.pos++; p.pos < len(p.data); p.pos++ {
		switch p.data[p.pos] {
		case '\\':
			p.pos++
		case '"':
			p.pos++
			return nil
		}
	}

	return lazyerrors.Errorf("unterminated string")
}

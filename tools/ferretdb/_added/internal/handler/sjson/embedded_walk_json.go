// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"bytes"
	"encoding/hex"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// jsonText reads JSON text token by token, accepting what encoding/json accepts and reading strings as it does. It
// is the walk's reader (embedded_walk.go).
type jsonText struct {
	data  []byte
	pos   int
	depth int // objects and arrays entered and not left

	unescaped []byte // the last string that needed unescaping
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

func (t *jsonText) skipSpace() {
	for t.pos < len(t.data) {
		switch t.data[t.pos] {
		case ' ', '\t', '\n', '\r':
			t.pos++
		default:
			return
		}
	}
}

// peek is the byte at t.pos (0 at the end).
func (t *jsonText) peek() byte {
	if t.pos < len(t.data) {
		return t.data[t.pos]
	}

	return 0
}

// literal moves past lit (true, false or null) when the text has it at t.pos.
func (t *jsonText) literal(lit string) bool {
	if !bytes.HasPrefix(t.data[t.pos:], unsafe.Slice(unsafe.StringData(lit), len(lit))) {
		return false
	}

	t.pos += len(lit)

	return true
}

// enter moves past the opening byte of the object or array at t.pos, and past its closing byte too when it is
// empty (false).
func (t *jsonText) enter(closing byte) (bool, error) {
	if t.depth++; t.depth > maxDepth {
		return false, lazyerrors.Errorf("exceeded max depth")
	}

	t.pos++

	if t.skipSpace(); t.peek() == closing {
		t.pos++
		t.depth--

		return false, nil
	}

	return true, nil
}

// more moves past the ',' before the next item (true) or past the closing byte (false).
func (t *jsonText) more(closing byte) (bool, error) {
	t.skipSpace()

	switch t.peek() {
	case ',':
		t.pos++
		return true, nil
	case closing:
		t.pos++
		t.depth--

		return false, nil
	}

	return false, lazyerrors.Errorf("',' or %q expected at %d", closing, t.pos)
}

// name reads an object's field name and the ':' after it; the name is valid until the next string is read.
func (t *jsonText) name() ([]byte, error) {
	if t.skipSpace(); t.peek() != '"' {
		return nil, lazyerrors.Errorf("object key is not a string at %d", t.pos)
	}

	name, err := t.str()
	if err != nil {
		return nil, err
	}

	if t.skipSpace(); t.peek() != ':' {
		return nil, lazyerrors.Errorf("':' expected at %d", t.pos)
	}

	t.pos++

	return name, nil
}

// skipValue moves past the value at t.pos, checking it.
func (t *jsonText) skipValue() error {
	t.skipSpace()

	var err error

	switch c := t.peek(); {
	case c == '{' || c == '[':
		var more bool

		more, err = t.enter(c + 2) // '}' and ']' follow their openers by 2
		for ; more && err == nil; more, err = t.more(c + 2) {
			if c == '{' {
				if _, err = t.name(); err != nil {
					break
				}
			}

			err = t.skipValue()
		}
	case c == '"':
		_, err = t.str()
	case c == '-' || (c >= '0' && c <= '9'):
		_, err = t.number()
	case !t.literal("true") && !t.literal("false") && !t.literal("null"):
		err = lazyerrors.Errorf("unexpected %q at %d", c, t.pos)
	}

	return err
}

// number reads a JSON number, its grammar checked (strconv alone would accept more).
func (t *jsonText) number() ([]byte, error) {
	d, start := t.data, t.pos
	i := start

	digits := func() bool {
		from := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}

		return i > from
	}

	if i < len(d) && d[i] == '-' {
		i++
	}

	ok := i < len(d) && d[i] == '0'
	if ok {
		i++
	} else {
		ok = digits()
	}

	if ok && i < len(d) && d[i] == '.' {
		i++
		ok = digits()
	}

	if ok && i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}

		ok = digits()
	}

	if !ok {
		return nil, lazyerrors.Errorf("invalid number at %d", start)
	}

	t.pos = i

	return d[start:i], nil
}

// str reads a JSON string: its bytes in the text when it needs no unescaping, else its unescaped bytes (valid until
// the next string is read).
func (t *jsonText) str() ([]byte, error) {
	d := t.data
	start := t.pos + 1
	plain, ascii := true, true

	for i := start; i < len(d); i++ {
		for i < len(d) && inString[d[i]] {
			i++
		}

		if i >= len(d) {
			break
		}

		switch c := d[i]; {
		case c == '"':
			t.pos = i + 1
			s := d[start:i]

			if plain && (ascii || utf8.Valid(s)) {
				return s, nil
			}

			t.unescaped = unquote(t.unescaped[:0], s)

			return t.unescaped, nil

		case c == '\\':
			plain = false

			switch i++; {
			case i < len(d) && bytes.IndexByte([]byte(`"\/bfnrt`), d[i]) >= 0:
			case i < len(d) && d[i] == 'u' && hex4(d[i+1:]) >= 0:
				i += 4
			default:
				return nil, lazyerrors.Errorf("invalid escape in string at %d", i)
			}

		case c < ' ':
			return nil, lazyerrors.Errorf("invalid character %q in string literal", c)

		default:
			ascii = false
		}
	}

	return nil, lazyerrors.Errorf("unterminated string")
}

// inString: the bytes a string holds as they are (not '"', '\\', control characters, nor bytes of non-ASCII
// UTF-8).
var inString = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}

	return t
}()

// hex4 is the value of the 4 hexadecimal digits at the start of b, or -1.
func hex4(b []byte) rune {
	var v [2]byte

	if len(b) < 4 {
		return -1
	}

	if _, err := hex.Decode(v[:], b[:4]); err != nil {
		return -1
	}

	return rune(v[0])<<8 | rune(v[1])
}

// unquote appends the string s (checked by str, quotes excluded) to dst unescaped as encoding/json unescapes it:
// invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && s[i+1] == 'u':
			r := hex4(s[i+2:])
			i += 6

			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2:])
				}

				if r = utf16.DecodeRune(r, r2); r != unicode.ReplacementChar {
					i += 6
				}
			}

			dst = utf8.AppendRune(dst, r)

		case c == '\\':
			dst = append(dst, escaped[s[i+1]])
			i += 2

		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++

		default:
			r, size := utf8.DecodeRune(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}

	return dst
}

// escaped is the byte each one-letter escape stands for.
var escaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

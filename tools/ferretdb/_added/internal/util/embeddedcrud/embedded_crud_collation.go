// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

// Package embeddedcrud holds what the crud concern's handler and SQLite backend share: the collation keys of strings
// (golang.org/x/text/collate), compared by the handler's filters and sorts and stored in collated unique indexes.
package embeddedcrud

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Collation is a collation the embedded database implements: a locale, strength 1 to 3, numeric ordering.
type Collation struct {
	Locale   string
	Strength int
	Numeric  bool
}

// String is the collation's text form, "<locale>/<strength>/<numeric 0|1>" (an index keeps it; ParseCollation reads it).
func (c Collation) String() string {
	n := 0
	if c.Numeric {
		n = 1
	}

	return fmt.Sprintf("%s/%d/%d", c.Locale, c.Strength, n)
}

// ParseCollation reads a collation's text form.
func ParseCollation(s string) (Collation, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return Collation{}, fmt.Errorf("invalid collation %q", s)
	}

	strength, err := strconv.Atoi(parts[1])
	if err != nil || strength < 1 || strength > 3 {
		return Collation{}, fmt.Errorf("invalid collation %q", s)
	}

	c := Collation{Locale: parts[0], Strength: strength, Numeric: parts[2] == "1"}
	if _, err = c.pool(); err != nil {
		return Collation{}, err
	}

	return c, nil
}

var pools sync.Map // text form -> *sync.Pool of *collate.Collator (a collator is not safe for concurrent use)

func (c Collation) pool() (*sync.Pool, error) {
	key := c.String()
	if p, ok := pools.Load(key); ok {
		return p.(*sync.Pool), nil
	}

	tag, err := language.Parse(strings.ReplaceAll(c.Locale, "_", "-"))
	if err != nil {
		return nil, err
	}

	var opts []collate.Option

	switch c.Strength {
	case 1:
		opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
	case 2:
		opts = append(opts, collate.IgnoreCase, collate.IgnoreWidth)
	}

	if c.Numeric {
		opts = append(opts, collate.Numeric)
	}

	p, _ := pools.LoadOrStore(key, &sync.Pool{New: func() any { return collate.New(tag, opts...) }})

	return p.(*sync.Pool), nil
}

// Keyer returns a function giving strings' collation keys (their byte order is the collation's order; equal keys
// are equal strings under it) and a function to call when done with it. Not for concurrent use.
func (c Collation) Keyer() (func(s string) string, func(), error) {
	p, err := c.pool()
	if err != nil {
		return nil, nil, err
	}

	col := p.Get().(*collate.Collator)

	var buf collate.Buffer

	key := func(s string) string {
		k := string(col.KeyFromString(&buf, s))
		buf.Reset()

		return k
	}

	return key, func() { p.Put(col) }, nil
}

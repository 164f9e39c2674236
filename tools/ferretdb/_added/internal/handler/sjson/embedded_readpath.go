// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// AppendBSON appends the BSON encoding of a document written by Marshal to dst: the bytes FerretDB would send for
// it after Unmarshal and its conversion to wire BSON, without building the intermediate types.Document (its
// fields, its map and each value's interface), which was most of what reading a document allocated.
//
// When keep is not nil, only the top-level fields it keeps are appended (in the document's order, as FerretDB's
// inclusion projection of top-level fields leaves them); the others are still checked against the schema.
//
// data must not change while AppendBSON runs (its strings are read in place); nothing of it is kept afterwards (the
// schema cache keeps copies).
func AppendBSON(dst, data []byte, keep func(name string) bool) ([]byte, error) {
	p := &onePass{data: data, inPlace: true}

	// The top-level fields go into reused slices: growing new ones for each document was an eighth of a page's CPU.
	top := topFields.Get().(*jsonValue)
	defer releaseTop(top)

	sch, err := p.documentWithCachedSchema(top)
	if err != nil {
		return dst, lazyerrors.Error(err)
	}

	if p.skipSpace(); p.pos != len(p.data) {
		return dst, lazyerrors.Errorf("%d bytes remain after the document", len(p.data)-p.pos)
	}

	if len(sch.Keys) != len(top.keys) {
		return dst, lazyerrors.Errorf(
			"sjson.Unmarshal: the data must have the same number of schema keys and document fields (keys: %d, fields: %d)",
			len(sch.Keys), len(top.keys),
		)
	}

	return appendBSONDocument(dst, top, sch, keep)
}

// topFields holds the values of documents' top-level fields between reads (their slices, emptied).
var topFields = sync.Pool{New: func() any { return &jsonValue{kind: '{'} }}

// releaseTop empties a document's top-level fields (dropping what they point to: the row's text) for the next read.
func releaseTop(top *jsonValue) {
	if cap(top.items) > 1024 {
		return
	}

	clear(top.keys)
	clear(top.items)
	top.keys = top.keys[:0]
	top.items = top.items[:0]
	topFields.Put(top)
}

// Schemas by their JSON text: the documents of a collection mostly share one (every project has the same fields of
// the same types), and parsing it into a tree was about half of the parsing of each document. A schema is never
// changed once built, so one may serve several readers at once.
var (
	schemaCacheM sync.RWMutex
	schemaCache  = map[string]*schema{}
)

// schemaCacheMax bounds the cache (collections whose documents vary in shape would otherwise fill it).
const schemaCacheMax = 4096

// The schemas read last (a few collections are read at once: a page's projects, then their teachers). A document
// whose `$s` text starts with one of these texts has that schema: a JSON object ends where its own bytes close it,
// so the object is exactly that text. Comparing bytes spares scanning the object to find its end (skipObject) and
// hashing its text for the cache, for most documents.
var recentSchemas [4]atomic.Pointer[recentSchema]

var recentNext atomic.Uint32

// recentSchema is a schema and its text (a copy: the text read is the stored row's, read in place).
type recentSchema struct {
	text []byte
	sch  *schema
}

func recentSchemaAt(data []byte) *recentSchema {
	for i := range recentSchemas {
		if recent := recentSchemas[i].Load(); recent != nil && bytes.HasPrefix(data, recent.text) {
			return recent
		}
	}

	return nil
}

func rememberSchema(text []byte, sch *schema) {
	recent := &recentSchema{text: bytes.Clone(text), sch: sch}
	recentSchemas[recentNext.Add(1)%uint32(len(recentSchemas))].Store(recent)
}

// cachedSchema returns the schema of the JSON text of a `$s` value.
func cachedSchema(text []byte) (*schema, error) {
	schemaCacheM.RLock()
	sch := schemaCache[string(text)] // no copy of text for the lookup
	schemaCacheM.RUnlock()

	if sch != nil {
		return sch, nil
	}

	p := &onePass{data: text}

	v, err := p.value()
	if err != nil {
		return nil, err
	}

	if sch, err = schemaOf(&v); err != nil {
		return nil, err
	}

	schemaCacheM.Lock()
	if len(schemaCache) < schemaCacheMax {
		schemaCache[string(text)] = sch
	}
	schemaCacheM.Unlock()

	return sch, nil
}

// documentWithCachedSchema parses a stored document: its fields other than `$s` into top (empty; as value does), its
// `$s` through cachedSchema.
func (p *onePass) documentWithCachedSchema(top *jsonValue) (*schema, error) {
	p.skipSpace()

	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return nil, lazyerrors.Errorf("not a document")
	}

	p.pos++

	var sch *schema

	p.skipSpace()

	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil, lazyerrors.Errorf("schema is not set")
	}

	for {
		p.skipSpace()

		key, err := p.value()
		if err != nil {
			return nil, err
		}

		if key.kind != '"' {
			return nil, lazyerrors.Errorf("object key is not a string at %d", p.pos)
		}

		if p.skipSpace(); p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, lazyerrors.Errorf("':' expected at %d", p.pos)
		}

		p.pos++

		if key.str == "$s" && sch == nil {
			p.skipSpace()
			start := p.pos

			if recent := recentSchemaAt(p.data[start:]); recent != nil {
				sch = recent.sch
				p.pos += len(recent.text)
			} else {
				if err = p.skipObject(); err != nil {
					return nil, err
				}

				if sch, err = cachedSchema(p.data[start:p.pos]); err != nil {
					return nil, err
				}

				rememberSchema(p.data[start:p.pos], sch)
			}
		} else {
			item, err := p.value()
			if err != nil {
				return nil, err
			}

			if key.str == "$s" {
				return nil, lazyerrors.Errorf("two schemas")
			}

			top.keys = append(top.keys, key.str)
			top.items = append(top.items, item)
		}

		done, err := p.next('}')
		if err != nil {
			return nil, err
		}

		if done {
			break
		}
	}

	if sch == nil {
		return nil, lazyerrors.Errorf("schema is not set")
	}

	return sch, nil
}

// skipObject moves past a JSON object (strings and nesting respected; its contents are checked when it is parsed,
// by cachedSchema, the first time that text is seen).
func (p *onePass) skipObject() error {
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return lazyerrors.Errorf("schema is not an object")
	}

	depth := 0

	for ; p.pos < len(p.data); p.pos++ {
		switch p.data[p.pos] {
		case '"':
			for p.pos++; p.pos < len(p.data) && p.data[p.pos] != '"'; p.pos++ {
				if p.data[p.pos] == '\\' {
					p.pos++
				}
			}
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

	return lazyerrors.Errorf("unterminated schema")
}

// appendBSONDocument appends an object's fields in the schema's key order (as Unmarshal sets them); those keep keeps,
// when it is not nil.
func appendBSONDocument(dst []byte, v *jsonValue, sch *schema, keep func(name string) bool) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)

	var err error

	for i, key := range sch.Keys {
		// The stored JSON lists a document's fields in the schema's order (Marshal writes both from the document):
		// the field at the same place first, a search only when it is not there.
		var item *jsonValue
		if i < len(v.keys) && v.keys[i] == key {
			item = &v.items[i]
		} else {
			var ok bool
			if item, ok = v.get(key); !ok {
				return dst, lazyerrors.Errorf("sjson.Unmarshal: missing key %q", key)
			}
		}

		if keep != nil && !keep(key) {
			continue
		}

		if dst, err = appendBSONElement(dst, key, item, sch.Properties[key]); err != nil {
			return dst, err
		}
	}

	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))

	return dst, nil
}

// appendBSONElement appends one element (type, name, value) as valueOf would decode it and wirebson encode it.
func appendBSONElement(dst []byte, name string, v *jsonValue, sch *elem) ([]byte, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return dst, lazyerrors.Errorf("a field name holds a NUL byte")
	}

	head := func(tag byte) []byte {
		dst = append(dst, tag)
		dst = append(dst, name...)

		return append(dst, 0)
	}

	if v.kind == 'n' {
		return head(0x0a), nil
	}

	if sch == nil {
		return dst, lazyerrors.Errorf("schema is not set")
	}

	wrong := func() ([]byte, error) {
		return dst, lazyerrors.Errorf("sjson: %q value for type %q", v.kind, sch.Type)
	}

	switch sch.Type {
	case elemTypeObject:
		if v.kind != '{' {
			return wrong()
		}

		dst = head(0x03)

		if len(v.keys) == 0 {
			return append(dst, 5, 0, 0, 0, 0), nil
		}

		if sch.Schema == nil {
			return dst, lazyerrors.Errorf("document schema is nil for non-empty document")
		}

		if len(sch.Schema.Keys) != len(v.keys) {
			return dst, lazyerrors.Errorf("%d elements in $k in the schema, %d in the document", len(sch.Schema.Keys), len(v.keys))
		}

		return appendBSONDocument(dst, v, sch.Schema, nil)

	case elemTypeArray:
		if v.kind != '[' {
			return wrong()
		}

		if sch.Items == nil {
			return dst, lazyerrors.Errorf("schema's items are not set")
		}

		if len(sch.Items) != len(v.items) {
			return dst, lazyerrors.Errorf("%d elements in schema, %d in total", len(sch.Items), len(v.items))
		}

		dst = head(0x04)
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0)

		var err error

		for i := range v.items {
			if dst, err = appendBSONElement(dst, strconv.Itoa(i), &v.items[i], sch.Items[i]); err != nil {
				return dst, err
			}
		}

		dst = append(dst, 0)
		binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))

		return dst, nil

	case elemTypeDouble:
		if v.kind != '0' {
			return wrong()
		}

		f, err := strconv.ParseFloat(v.str, 64)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		return binary.LittleEndian.AppendUint64(head(0x01), math.Float64bits(f)), nil

	case elemTypeString:
		if v.kind != '"' {
			return wrong()
		}

		dst = binary.LittleEndian.AppendUint32(head(0x02), uint32(len(v.str)+1))
		dst = append(dst, v.str...)

		return append(dst, 0), nil

	case elemTypeBinData:
		if v.kind != '"' {
			return wrong()
		}

		if sch.Subtype == nil {
			return dst, lazyerrors.Errorf("binary subtype in the schema is nil")
		}

		b, err := base64.StdEncoding.DecodeString(v.str)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		dst = binary.LittleEndian.AppendUint32(head(0x05), uint32(len(b)))
		dst = append(dst, byte(*sch.Subtype))

		return append(dst, b...), nil

	case elemTypeObjectID:
		if v.kind != '"' {
			return wrong()
		}

		if hex.DecodedLen(len(v.str)) != types.ObjectIDLen {
			return dst, lazyerrors.Errorf("%d bytes in an ObjectID", hex.DecodedLen(len(v.str)))
		}

		var id [types.ObjectIDLen]byte
		if _, err := hex.Decode(id[:], []byte(v.str)); err != nil {
			return dst, lazyerrors.Error(err)
		}

		return append(head(0x07), id[:]...), nil

	case elemTypeBool:
		switch v.kind {
		case 't':
			return append(head(0x08), 1), nil
		case 'f':
			return append(head(0x08), 0), nil
		default:
			return wrong()
		}

	case elemTypeDate:
		if v.kind != '0' {
			return wrong()
		}

		ms, err := strconv.ParseInt(v.str, 10, 64)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		return binary.LittleEndian.AppendUint64(head(0x09), uint64(ms)), nil

	case elemTypeNull:
		return dst, lazyerrors.Errorf("expected null, got %q", v.kind)

	case elemTypeRegex:
		if v.kind != '"' {
			return wrong()
		}

		if sch.Options == nil {
			return dst, lazyerrors.Errorf("regex options is nil")
		}

		if strings.IndexByte(v.str, 0) >= 0 || strings.IndexByte(*sch.Options, 0) >= 0 {
			return dst, lazyerrors.Errorf("a regular expression holds a NUL byte")
		}

		dst = append(head(0x0b), v.str...)
		dst = append(dst, 0)
		dst = append(dst, *sch.Options...)

		return append(dst, 0), nil

	case elemTypeInt:
		if v.kind != '0' {
			return wrong()
		}

		i, err := strconv.ParseInt(v.str, 10, 32)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		return binary.LittleEndian.AppendUint32(head(0x10), uint32(int32(i))), nil

	case elemTypeTimestamp:
		if v.kind != '0' {
			return wrong()
		}

		u, err := strconv.ParseUint(v.str, 10, 64)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		return binary.LittleEndian.AppendUint64(head(0x11), u), nil

	case elemTypeLong:
		if v.kind != '0' {
			return wrong()
		}

		i, err := strconv.ParseInt(v.str, 10, 64)
		if err != nil {
			return dst, lazyerrors.Error(err)
		}

		return binary.LittleEndian.AppendUint64(head(0x12), uint64(i)), nil

	default:
		return dst, lazyerrors.Errorf("sjson.unmarshalSingleValue: unhandled type %q", sch.Type)
	}
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
	"unsafe"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// UnmarshalOnePass decodes a document written by Marshal into the same value Unmarshal returns, reading the text
// once: Unmarshal gives every field and its schema a json.Decoder of their own, which made decoding most of the
// time FerretDB spends on a document it reads. Strings with escapes, the rare case, still go through
// encoding/json.
func UnmarshalOnePass(data []byte) (*types.Document, error) {
	p := &onePass{data: data}

	top, err := p.value()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if p.skipSpace(); p.pos != len(p.data) {
		return nil, lazyerrors.Errorf("%d bytes remain after the document", len(p.data)-p.pos)
	}

	if top.kind != '{' {
		return nil, lazyerrors.Errorf("not a document")
	}

	sv, ok := top.get("$s")
	if !ok {
		return nil, lazyerrors.Errorf("schema is not set")
	}

	sch, err := schemaOf(sv)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if len(sch.Keys) != len(top.keys)-1 {
		return nil, lazyerrors.Errorf(
			"sjson.Unmarshal: the data must have the same number of schema keys and document fields (keys: %d, fields: %d)",
			len(sch.Keys), len(top.keys)-1,
		)
	}

	d := must.NotFail(types.NewDocument())

	for _, key := range sch.Keys {
		v, ok := top.get(key)
		if !ok {
			return nil, lazyerrors.Errorf("sjson.Unmarshal: missing key %q", key)
		}

		value, err := valueOf(v, sch.Properties[key])
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		d.Set(key, value)
	}

	return d, nil
}

// jsonValue is one parsed JSON value: an object ('{'), array ('['), string ('"': str unescaped), number ('0': str
// as written), true ('t'), false ('f') or null ('n').
type jsonValue struct {
	kind  byte
	str   string
	keys  []string
	items []jsonValue // an object's values (in keys' order) or an array's items
}

func (v *jsonValue) get(key string) (*jsonValue, bool) {
	for i, k := range v.keys {
		if k == key {
			return &v.items[i], true
		}
	}

	return nil, false
}

type onePass struct {
	data []byte
	pos  int

	// inPlace: strings and numbers point into data instead of being copied (see text). Only for data that is never
	// changed while they are in use (AppendBSON's: read once, from immutable text).
	inPlace bool
}

// text returns b as a string: a copy, or b itself when p.inPlace.
func (p *onePass) text(b []byte) string {
	if p.inPlace {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}

	return string(b)
}

func (p *onePass) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *onePass) value() (jsonValue, error) {
	p.skipSpace()

	if p.pos >= len(p.data) {
		return jsonValue{}, lazyerrors.Errorf("unexpected end of JSON")
	}

	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		v := jsonValue{kind: '{'}

		p.skipSpace()

		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return v, nil
		}

		for {
			p.skipSpace()

			key, err := p.value()
			if err != nil {
				return jsonValue{}, err
			}

			if key.kind != '"' {
				return jsonValue{}, lazyerrors.Errorf("object key is not a string at %d", p.pos)
			}

			if p.skipSpace(); p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return jsonValue{}, lazyerrors.Errorf("':' expected at %d", p.pos)
			}

			p.pos++

			item, err := p.value()
			if err != nil {
				return jsonValue{}, err
			}

			v.keys = append(v.keys, key.str)
			v.items = append(v.items, item)

			if done, err := p.next('}'); err != nil || done {
				return v, err
			}
		}

	case c == '[':
		p.pos++
		v := jsonValue{kind: '[', items: []jsonValue{}}

		p.skipSpace()

		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return v, nil
		}

		for {
			item, err := p.value()
			if err != nil {
				return jsonValue{}, err
			}

			v.items = append(v.items, item)

			if done, err := p.next(']'); err != nil || done {
				return v, err
			}
		}

	case c == '"':
		start := p.pos
		escaped := false

		for p.pos++; p.pos < len(p.data); p.pos++ {
			switch p.data[p.pos] {
			case '\\':
				escaped = true
				p.pos++
			case '"':
				p.pos++
				raw := p.data[start:p.pos]

				if !escaped {
					return jsonValue{kind: '"', str: p.text(raw[1 : len(raw)-1])}, nil
				}

				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					return jsonValue{}, lazyerrors.Error(err)
				}

				return jsonValue{kind: '"', str: s}, nil
			}
		}

		return jsonValue{}, lazyerrors.Errorf("unterminated string")

	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos

		for p.pos < len(p.data) && bytes.IndexByte([]byte("+-.eE0123456789"), p.data[p.pos]) >= 0 {
			p.pos++
		}

		return jsonValue{kind: '0', str: p.text(p.data[start:p.pos])}, nil

	case bytes.HasPrefix(p.data[p.pos:], []byte("true")):
		p.pos += 4
		return jsonValue{kind: 't'}, nil

	case bytes.HasPrefix(p.data[p.pos:], []byte("false")):
		p.pos += 5
		return jsonValue{kind: 'f'}, nil

	case bytes.HasPrefix(p.data[p.pos:], []byte("null")):
		p.pos += 4
		return jsonValue{kind: 'n'}, nil

	default:
		return jsonValue{}, lazyerrors.Errorf("unexpected %q at %d", c, p.pos)
	}
}

// next consumes a ',' (false) or the closing byte (true).
func (p *onePass) next(closing byte) (bool, error) {
	p.skipSpace()

	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ',':
			p.pos++
			return false, nil
		case closing:
			p.pos++
			return true, nil
		}
	}

	return false, lazyerrors.Errorf("',' or %q expected at %d", closing, p.pos)
}

// schemaOf converts a parsed `$s` value ({"p": {...}, "$k": [...]}) into a schema.
func schemaOf(v *jsonValue) (*schema, error) {
	if v.kind != '{' {
		return nil, lazyerrors.Errorf("schema is not an object")
	}

	sch := new(schema)

	if p, ok := v.get("p"); ok {
		if p.kind != '{' {
			return nil, lazyerrors.Errorf("schema properties are not an object")
		}

		sch.Properties = make(map[string]*elem, len(p.keys))

		for i, key := range p.keys {
			e, err := elemOf(&p.items[i])
			if err != nil {
				return nil, err
			}

			sch.Properties[key] = e
		}
	}

	if k, ok := v.get("$k"); ok {
		if k.kind != '[' {
			return nil, lazyerrors.Errorf("schema keys are not an array")
		}

		sch.Keys = make([]string, len(k.items))

		for i, item := range k.items {
			if item.kind != '"' {
				return nil, lazyerrors.Errorf("schema key is not a string")
			}

			sch.Keys[i] = item.str
		}
	}

	return sch, nil
}

func elemOf(v *jsonValue) (*elem, error) {
	if v.kind == 'n' {
		return nil, nil
	}

	if v.kind != '{' {
		return nil, lazyerrors.Errorf("element schema is not an object")
	}

	e := new(elem)

	for i, key := range v.keys {
		item := &v.items[i]

		switch key {
		case "t":
			e.Type = elemType(item.str)
		case "$s":
			s, err := schemaOf(item)
			if err != nil {
				return nil, err
			}

			e.Schema = s
		case "o":
			o := item.str
			e.Options = &o
		case "i":
			if item.kind != '[' {
				return nil, lazyerrors.Errorf("array item schemas are not an array")
			}

			e.Items = make([]*elem, len(item.items))

			for j := range item.items {
				ie, err := elemOf(&item.items[j])
				if err != nil {
					return nil, err
				}

				e.Items[j] = ie
			}
		case "s":
			n, err := strconv.ParseUint(item.str, 10, 8)
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			s := types.BinarySubtype(n)
			e.Subtype = &s
		default:
			return nil, lazyerrors.Errorf("unknown schema field %q", key)
		}
	}

	return e, nil
}

// valueOf converts a parsed value by its schema, as unmarshalSingleValue does.
func valueOf(v *jsonValue, sch *elem) (any, error) {
	if v.kind == 'n' {
		return types.Null, nil
	}

	if sch == nil {
		return nil, lazyerrors.Errorf("schema is not set")
	}

	wrong := func() (any, error) {
		return nil, lazyerrors.Errorf("sjson: %q value for type %q", v.kind, sch.Type)
	}

	switch sch.Type {
	case elemTypeObject:
		if v.kind != '{' {
			return wrong()
		}

		if len(v.keys) == 0 {
			return &types.Document{}, nil
		}

		if sch.Schema == nil {
			return nil, lazyerrors.Errorf("document schema is nil for non-empty document")
		}

		if len(sch.Schema.Keys) != len(v.keys) {
			return nil, lazyerrors.Errorf("%d elements in $k in the schema, %d in the document", len(sch.Schema.Keys), len(v.keys))
		}

		d := must.NotFail(types.NewDocument())

		for _, key := range sch.Schema.Keys {
			item, ok := v.get(key)
			if !ok {
				return nil, lazyerrors.Errorf("missing key %q", key)
			}

			value, err := valueOf(item, sch.Schema.Properties[key])
			if err != nil {
				return nil, err
			}

			d.Set(key, value)
		}

		return d, nil

	case elemTypeArray:
		if v.kind != '[' {
			return wrong()
		}

		if sch.Items == nil {
			return nil, lazyerrors.Errorf("schema's items are not set")
		}

		if len(sch.Items) != len(v.items) {
			return nil, lazyerrors.Errorf("%d elements in schema, %d in total", len(sch.Items), len(v.items))
		}

		a := types.MakeArray(len(v.items))

		for i := range v.items {
			value, err := valueOf(&v.items[i], sch.Items[i])
			if err != nil {
				return nil, err
			}

			a.Append(value)
		}

		return a, nil

	case elemTypeDouble:
		if v.kind != '0' {
			return wrong()
		}

		f, err := strconv.ParseFloat(v.str, 64)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return f, nil

	case elemTypeString:
		if v.kind != '"' {
			return wrong()
		}

		return v.str, nil

	case elemTypeBinData:
		if v.kind != '"' {
			return wrong()
		}

		b := make([]byte, base64.StdEncoding.DecodedLen(len(v.str)))

		n, err := base64.StdEncoding.Decode(b, []byte(v.str))
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if sch.Subtype == nil {
			return nil, lazyerrors.Errorf("binary subtype in the schema is nil")
		}

		return types.Binary{B: b[:n], Subtype: *sch.Subtype}, nil

	case elemTypeObjectID:
		if v.kind != '"' {
			return wrong()
		}

		b, err := hex.DecodeString(v.str)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if len(b) != types.ObjectIDLen {
			return nil, lazyerrors.Errorf("%d bytes in an ObjectID", len(b))
		}

		var id types.ObjectID
		copy(id[:], b)

		return id, nil

	case elemTypeBool:
		switch v.kind {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		default:
			return wrong()
		}

	case elemTypeDate:
		if v.kind != '0' {
			return wrong()
		}

		ms, err := strconv.ParseInt(v.str, 10, 64)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return time.UnixMilli(ms), nil

	case elemTypeNull:
		return nil, lazyerrors.Errorf("expected null, got %q", v.kind)

	case elemTypeRegex:
		if v.kind != '"' {
			return wrong()
		}

		if sch.Options == nil {
			return nil, lazyerrors.Errorf("regex options is nil")
		}

		return types.Regex{Pattern: v.str, Options: *sch.Options}, nil

	case elemTypeInt:
		if v.kind != '0' {
			return wrong()
		}

		i, err := strconv.ParseInt(v.str, 10, 32)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return int32(i), nil

	case elemTypeTimestamp:
		if v.kind != '0' {
			return wrong()
		}

		u, err := strconv.ParseUint(v.str, 10, 64)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return types.Timestamp(u), nil

	case elemTypeLong:
		if v.kind != '0' {
			return wrong()
		}

		i, err := strconv.ParseInt(v.str, 10, 64)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return i, nil

	default:
		return nil, lazyerrors.Errorf("sjson.unmarshalSingleValue: unhandled type %q", sch.Type)
	}
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// The one walk over a stored document's JSON text that both of the patch's readers use: UnmarshalOnePass (the
// pushdown's, into a types.Document: embedded_pushdown.go) and AppendBSON (the read path's, into the reply's BSON:
// embedded_readpath.go). It reads the text once and builds no tree of parsed values: each value is checked against
// its schema element as Unmarshal checks it, converted, and handed to a sink, in the schema's order.
//
// It accepts what Unmarshal accepts and reads it the same way (the tests compare them on random and broken
// documents): JSON as encoding/json reads it (jsonText, embedded_walk_json.go), with nothing after the document; the
// schema read by encoding/json itself, once per distinct text (embedded_walk_schema.go); fields matched to the schema's
// keys by name, in any order, a repeated name taking its last value.
//
// Marshal writes `$s` first and then the fields in the schema's order, so the walk first reads them in that order,
// handing each value on as it reads it. Anything else (a field out of place, a repeated name, a schema repeating a
// key, any error) makes it start again on the slow path, which indexes each object's fields before it reads their
// values; the errors returned are the slow path's.

// walk is one walk over a stored document.
type walk struct {
	jsonText

	sink sink
	keep func(name string) bool // the top-level fields handed to the sink (nil: all)
	sch  *schemaOf              // the document's
	slow bool
	skip bool // the value read is checked but not handed to the sink (a top-level field keep drops)

	v   scalar
	bin []byte // the last binary data read
	oid [12]byte
}

// sink receives a document's values from the walk, in the schema's order.
type sink interface {
	// open starts a document or an array (tag; size: its number of elements, a hint). The stored document itself
	// is the first one opened.
	open(k key, tag byte, size int) error
	// close ends the document or array opened last.
	close()
	scalar(k key, v *scalar) error
	// reset forgets all it received: the walk starts again.
	reset()
}

// key names a value: a document's field, or (index >= 0) an array's element.
type key struct {
	name  string
	index int
}

// scalar is one value read, typed as BSON types it.
type scalar struct {
	tag  byte   // BSON's type (tagDouble, ...)
	n    uint64 // double (its bits), bool, date, int32, timestamp, int64
	b    []byte // string, binary data, ObjectID, regex pattern; valid until the walk reads on
	opts string // regex options
	sub  byte   // binary subtype
}

// BSON's types.
const (
	tagDouble    = 0x01
	tagString    = 0x02
	tagDocument  = 0x03
	tagArray     = 0x04
	tagBinary    = 0x05
	tagObjectID  = 0x07
	tagBool      = 0x08
	tagDate      = 0x09
	tagNull      = 0x0a
	tagRegex     = 0x0b
	tagInt32     = 0x10
	tagTimestamp = 0x11
	tagInt64     = 0x12
)

// errOutOfOrder stops the fast path: the text is not as Marshal writes it.
var errOutOfOrder = errors.New("not in the schema's order")

// walker is a walk with the sinks of its two users, kept in a pool between documents for their buffers.
type walker struct {
	walk
	bson  bsonSink
	types typesSink
}

var walkers = sync.Pool{New: func() any { return new(walker) }}

// release drops what the walker refers to (the text, what was built) and pools it.
func (w *walker) release() {
	w.bson = bsonSink{starts: w.bson.starts[:0]}
	w.types.reset()
	w.data, w.sink, w.keep, w.sch, w.v.b = nil, nil, nil, nil, nil

	if cap(w.unescaped) <= 1<<16 && cap(w.bin) <= 1<<16 {
		walkers.Put(w)
	}
}

// run walks data into s: the top-level fields keep keeps (nil: all).
func (w *walk) run(data []byte, s sink, keep func(name string) bool) error {
	w.data, w.sink, w.keep = data, s, keep

	if err := w.document(); err == nil {
		return nil
	}

	w.sink.reset()
	w.slow = true
	err := w.document()
	w.slow = false

	return err
}

func (w *walk) document() error {
	w.pos, w.depth = 0, 0

	if w.skipSpace(); w.peek() != '{' {
		return lazyerrors.Errorf("not a document")
	}

	if err := w.object(key{index: -1}, nil); err != nil {
		return err
	}

	if w.pos != len(w.data) {
		return lazyerrors.Errorf("%d bytes remain after the document", len(w.data)-w.pos)
	}

	return nil
}

// object reads the object at w.pos by its schema (nil: the stored document itself, whose schema is its `$s`).
func (w *walk) object(k key, sch *schema) error {
	if w.slow {
		return w.indexedObject(k, sch)
	}

	return w.orderedObject(k, sch)
}

// orderedObject is the fast path: `$s` first (in the stored document), then the fields in the schema's order.
func (w *walk) orderedObject(k key, sch *schema) error {
	top := sch == nil

	more, err := w.enter('}')

	switch {
	case err != nil || (top && !more):
		return errOutOfOrder
	case !more:
		return w.empty(k)
	case top:
		if name, err := w.name(); err != nil || string(name) != "$s" {
			return errOutOfOrder
		}

		s, err := w.readSchema()
		if err != nil || !s.inOrder {
			return errOutOfOrder
		}

		w.sch, sch = s, s.sch

		if more, err = w.more('}'); err != nil {
			return err
		}
	}

	if err = w.open(k, tagDocument, len(sch.Keys)); err != nil {
		return err
	}

	elems := w.sch.elems[sch]
	n := 0

	for ; more; n++ {
		name, err := w.name()
		if err != nil || n >= len(sch.Keys) || string(name) != sch.Keys[n] {
			return errOutOfOrder
		}

		if err = w.field(sch.Keys[n], elems[n], top); err != nil {
			return err
		}

		if more, err = w.more('}'); err != nil {
			return err
		}
	}

	if n != len(sch.Keys) {
		return errOutOfOrder
	}

	w.close()

	return nil
}

// indexedObject is the slow path: the object's fields are indexed by name first (the last value of a repeated
// name wins, as in Unmarshal's map), then read in the schema's order.
func (w *walk) indexedObject(k key, sch *schema) error {
	top := sch == nil
	last := map[string]int{} // a field's name: where its value starts (-1 once read)
	schemaAt := -1

	more, err := w.enter('}')

	for ; more && err == nil; more, err = w.more('}') {
		var name []byte
		if name, err = w.name(); err != nil {
			return err
		}

		if top && string(name) == "$s" {
			schemaAt = w.pos
		} else {
			last[string(name)] = w.pos
		}

		err = w.skipValue()
	}

	if err != nil {
		return err
	}

	end := w.pos

	switch {
	case top && schemaAt < 0:
		return lazyerrors.Errorf("schema is not set")

	case top:
		w.pos = schemaAt

		if w.sch, err = w.readSchema(); err != nil {
			return err
		}

		if sch = w.sch.sch; len(sch.Keys) != len(last) {
			return lazyerrors.Errorf(
				"sjson.Unmarshal: the data must have the same number of schema keys and document fields (keys: %d, fields: %d)",
				len(sch.Keys), len(last),
			)
		}

	case len(last) == 0:
		w.pos = end
		return w.empty(k)

	case len(sch.Keys) != len(last):
		return lazyerrors.Errorf("%d elements in $k in the schema, %d in the document", len(sch.Keys), len(last))
	}

	if err = w.open(k, tagDocument, len(sch.Keys)); err != nil {
		return err
	}

	for i, name := range sch.Keys {
		at, ok := last[name]
		if !ok {
			return lazyerrors.Errorf("missing key %q", name)
		}

		if at < 0 {
			continue // a key the schema repeats: Unmarshal sets the same value again
		}

		last[name], w.pos = -1, at

		if err = w.field(name, w.sch.elems[sch][i], top); err != nil {
			return err
		}
	}

	w.close()
	w.pos = end

	return nil
}

// field reads the value of the field name at w.pos.
func (w *walk) field(name string, e *elem, top bool) error {
	k := key{name: name, index: -1}

	if !top {
		return w.value(k, e)
	}

	w.skip = w.keep != nil && !w.keep(name)
	err := w.value(k, e)
	w.skip = false

	return err
}

// array reads the array at w.pos by its items' schemas.
func (w *walk) array(k key, items []*elem) error {
	if err := w.open(k, tagArray, len(items)); err != nil {
		return err
	}

	n := 0

	more, err := w.enter(']')
	for ; more && err == nil; more, err = w.more(']') {
		if n < len(items) {
			err = w.value(key{index: n}, items[n])
		} else {
			err = w.skipValue()
		}

		if err != nil {
			return err
		}

		n++
	}

	switch {
	case err != nil:
		return err
	case n != len(items):
		return lazyerrors.Errorf("sjson.arrayType.UnmarshalJSON: %d elements in schema, %d in total", len(items), n)
	}

	w.close()

	return nil
}

// value reads the value at w.pos by its schema element, as unmarshalSingleValue does, and hands it to the sink.
func (w *walk) value(k key, e *elem) error {
	if w.skipSpace(); w.literal("null") {
		return w.emit(k, tagNull)
	}

	if e == nil {
		return lazyerrors.Errorf("schema is not set")
	}

	c := w.peek()
	wrong := func() error { return lazyerrors.Errorf("sjson: %q value for type %q", c, e.Type) }

	switch e.Type {
	case elemTypeObject, elemTypeArray:
		switch {
		case e.Type == elemTypeObject && e.Schema == nil:
			return lazyerrors.Errorf("sjson.unmarshalSingleValue: schema is not set")
		case e.Type == elemTypeArray && e.Items == nil:
			return lazyerrors.Errorf("sjson.unmarshalSingleValue: schema's items are not set")
		case e.Type == elemTypeObject && c == '{':
			return w.object(k, e.Schema)
		case e.Type == elemTypeArray && c == '[':
			return w.array(k, e.Items)
		}

		return wrong()

	case elemTypeString, elemTypeObjectID, elemTypeRegex, elemTypeBinData:
		switch {
		case c == '[' && e.Type == elemTypeBinData:
			return w.byteArray(k, e)
		case c != '"':
			return wrong()
		}

		s, err := w.str()
		if err != nil {
			return err
		}

		return w.text(k, e, s)

	case elemTypeBool:
		switch {
		case w.literal("true"):
			w.v.n = 1
		case w.literal("false"):
			w.v.n = 0
		default:
			return wrong()
		}

		return w.emit(k, tagBool)

	case elemTypeDouble, elemTypeDate, elemTypeInt, elemTypeTimestamp, elemTypeLong:
		if c != '-' && (c < '0' || c > '9') {
			return wrong()
		}

		s, err := w.number()
		if err != nil {
			return err
		}

		return w.numeric(k, e, unsafe.String(unsafe.SliceData(s), len(s))) // strconv keeps no part of it

	case elemTypeNull:
		return lazyerrors.Errorf("sjson.unmarshalSingleValue: expected null, got %q", c)

	default:
		return lazyerrors.Errorf("sjson.unmarshalSingleValue: unhandled type %q", e.Type)
	}
}

// text hands on a string, an ObjectID, a regular expression or binary data read from the JSON string s.
func (w *walk) text(k key, e *elem, s []byte) error {
	switch e.Type {
	case elemTypeString:
		w.v.b = s
		return w.emit(k, tagString)

	case elemTypeObjectID:
		if hex.DecodedLen(len(s)) != len(w.oid) {
			return lazyerrors.Errorf("sjson.objectIDType.UnmarshalJSON: %d bytes", hex.DecodedLen(len(s)))
		}

		if _, err := hex.Decode(w.oid[:], s); err != nil {
			return lazyerrors.Error(err)
		}

		w.v.b = w.oid[:]

		return w.emit(k, tagObjectID)

	case elemTypeRegex:
		if e.Options == nil {
			return lazyerrors.Errorf("regex options is nil")
		}

		w.v.b, w.v.opts = s, *e.Options

		return w.emit(k, tagRegex)

	default:
		w.bin = slices.Grow(w.bin[:0], base64.StdEncoding.DecodedLen(len(s)))

		n, err := base64.StdEncoding.Decode(w.bin[:cap(w.bin)], s)
		if err != nil {
			return lazyerrors.Error(err)
		}

		w.bin = w.bin[:n]

		return w.binary(k, e)
	}
}

// byteArray reads binary data written as an array of numbers (encoding/json reads a []byte from either).
func (w *walk) byteArray(k key, e *elem) error {
	w.bin = w.bin[:0]

	more, err := w.enter(']')
	for ; more && err == nil; more, err = w.more(']') {
		var b uint64

		if w.skipSpace(); !w.literal("null") {
			var s []byte
			if s, err = w.number(); err != nil {
				return err
			}

			if b, err = strconv.ParseUint(string(s), 10, 8); err != nil {
				return lazyerrors.Error(err)
			}
		}

		w.bin = append(w.bin, byte(b))
	}

	if err != nil {
		return err
	}

	return w.binary(k, e)
}

// binary hands on the binary data in w.bin.
func (w *walk) binary(k key, e *elem) error {
	if e.Subtype == nil {
		return lazyerrors.Errorf("binary subtype in the schema is nil")
	}

	w.v.b, w.v.sub = w.bin, byte(*e.Subtype)

	return w.emit(k, tagBinary)
}

// numeric hands on a double, a date, an int32, a timestamp or an int64 read from the JSON number s.
func (w *walk) numeric(k key, e *elem, s string) error {
	var tag byte
	var err error

	switch e.Type {
	case elemTypeDouble:
		var f float64
		f, err = strconv.ParseFloat(s, 64)
		tag, w.v.n = tagDouble, math.Float64bits(f)

	case elemTypeTimestamp:
		tag = tagTimestamp
		w.v.n, err = strconv.ParseUint(s, 10, 64)

	default:
		bits := 64
		tag = tagInt64

		switch e.Type {
		case elemTypeDate:
			tag = tagDate
		case elemTypeInt:
			tag, bits = tagInt32, 32
		}

		var i int64
		i, err = strconv.ParseInt(s, 10, bits)
		w.v.n = uint64(i)
	}

	if err != nil {
		return lazyerrors.Error(err)
	}

	return w.emit(k, tag)
}

// emit hands the scalar in w.v to the sink, unless the value is skipped.
func (w *walk) emit(k key, tag byte) error {
	if w.skip {
		return nil
	}

	w.v.tag = tag

	return w.sink.scalar(k, &w.v)
}

func (w *walk) open(k key, tag byte, size int) error {
	if w.skip {
		return nil
	}

	return w.sink.open(k, tag, size)
}

func (w *walk) close() {
	if !w.skip {
		w.sink.close()
	}
}

// empty hands on an empty document.
func (w *walk) empty(k key) error {
	if err := w.open(k, tagDocument, 0); err != nil {
		return err
	}

	w.close()

	return nil
}

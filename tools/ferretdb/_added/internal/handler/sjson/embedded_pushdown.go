// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"math"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// The pushdown's reader: a stored document to a types.Document, through the walk (embedded_walk.go).

// UnmarshalOnePass decodes a document written by Marshal into the same value Unmarshal returns, reading the text
// once: Unmarshal gives every field and its schema a json.Decoder of their own, which made decoding most of the
// time FerretDB spends on a document it reads. data is not kept (strings are copied).
func UnmarshalOnePass(data []byte) (*types.Document, error) {
	w := walkers.Get().(*walker)
	defer w.release()

	if err := w.run(data, &w.types, nil); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return w.types.doc, nil
}

// typesSink builds the types.Document of the values it receives, as Unmarshal does.
type typesSink struct {
	doc   *types.Document
	stack []any // the documents and arrays open
}

func (s *typesSink) open(k key, tag byte, size int) error {
	var v any

	switch {
	case tag == tagArray:
		v = types.MakeArray(size)
	case size == 0:
		v = new(types.Document)
	default:
		v = types.MakeDocument(size)
	}

	if len(s.stack) == 0 {
		s.doc = v.(*types.Document)
	} else {
		s.add(k, v)
	}

	s.stack = append(s.stack, v)

	return nil
}

func (s *typesSink) close() {
	s.stack[len(s.stack)-1] = nil
	s.stack = s.stack[:len(s.stack)-1]
}

func (s *typesSink) scalar(k key, v *scalar) error {
	var value any

	switch v.tag {
	case tagDouble:
		value = math.Float64frombits(v.n)
	case tagString:
		value = string(v.b)
	case tagBinary:
		value = types.Binary{B: append(make([]byte, 0, len(v.b)), v.b...), Subtype: types.BinarySubtype(v.sub)}
	case tagObjectID:
		value = types.ObjectID(v.b)
	case tagBool:
		value = v.n == 1
	case tagDate:
		value = time.UnixMilli(int64(v.n))
	case tagNull:
		value = types.Null
	case tagRegex:
		value = types.Regex{Pattern: string(v.b), Options: v.opts}
	case tagInt32:
		value = int32(v.n)
	case tagTimestamp:
		value = types.Timestamp(v.n)
	case tagInt64:
		value = int64(v.n)
	}

	s.add(k, value)

	return nil
}

// add sets a value in the document or array open last.
func (s *typesSink) add(k key, value any) {
	switch parent := s.stack[len(s.stack)-1].(type) {
	case *types.Document:
		parent.Set(k.name, value)
	case *types.Array:
		parent.Append(value)
	}
}

func (s *typesSink) reset() {
	clear(s.stack)
	s.stack = s.stack[:0]
	s.doc = nil
}

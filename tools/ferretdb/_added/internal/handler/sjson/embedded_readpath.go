// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// The read path's writer: a stored document straight to the reply's BSON, through the walk (embedded_walk.go).

// AppendBSON appends the BSON encoding of a document written by Marshal to dst: the bytes FerretDB would send for
// it after Unmarshal and its conversion to wire BSON, without building the intermediate types.Document (its
// fields, its map and each value's interface), which was most of what reading a document allocated.
//
// When keep is not nil, only the top-level fields it keeps are appended (in the document's order, as FerretDB's
// inclusion projection of top-level fields leaves them); the others are still checked against the schema.
//
// data must not change while AppendBSON runs (its strings are read in place); nothing of it is kept afterwards (the
// schema cache keeps copies). On an error, dst is returned as it was.
func AppendBSON(dst, data []byte, keep func(name string) bool) ([]byte, error) {
	w := walkers.Get().(*walker)
	defer w.release()

	w.bson.dst, w.bson.base = dst, len(dst)

	if err := w.run(data, &w.bson, keep); err != nil {
		return dst, lazyerrors.Error(err)
	}

	return w.bson.dst, nil
}

// bsonSink writes the values it receives as BSON, as wirebson encodes them.
type bsonSink struct {
	dst    []byte
	base   int   // len(dst) before the document
	starts []int // where each open document or array starts (its length goes there)
}

func (s *bsonSink) open(k key, tag byte, _ int) error {
	if len(s.starts) > 0 { // not the stored document itself
		if err := s.head(tag, k); err != nil {
			return err
		}
	}

	s.starts = append(s.starts, len(s.dst))
	s.dst = append(s.dst, 0, 0, 0, 0)

	return nil
}

func (s *bsonSink) close() {
	start := s.starts[len(s.starts)-1]
	s.starts = s.starts[:len(s.starts)-1]
	s.dst = append(s.dst, 0)
	binary.LittleEndian.PutUint32(s.dst[start:], uint32(len(s.dst)-start))
}

func (s *bsonSink) scalar(k key, v *scalar) error {
	if err := s.head(v.tag, k); err != nil {
		return err
	}

	switch v.tag {
	case tagDouble, tagDate, tagTimestamp, tagInt64:
		s.dst = binary.LittleEndian.AppendUint64(s.dst, v.n)
	case tagInt32:
		s.dst = binary.LittleEndian.AppendUint32(s.dst, uint32(v.n))
	case tagBool:
		s.dst = append(s.dst, byte(v.n))
	case tagString:
		s.dst = binary.LittleEndian.AppendUint32(s.dst, uint32(len(v.b)+1))
		s.dst = append(append(s.dst, v.b...), 0)
	case tagBinary:
		s.dst = binary.LittleEndian.AppendUint32(s.dst, uint32(len(v.b)))
		s.dst = append(append(s.dst, v.sub), v.b...)
	case tagObjectID:
		s.dst = append(s.dst, v.b...)
	case tagRegex:
		if strings.IndexByte(string(v.b), 0) >= 0 || strings.IndexByte(v.opts, 0) >= 0 {
			return lazyerrors.Errorf("a regular expression holds a NUL byte")
		}

		s.dst = append(append(s.dst, v.b...), 0)
		s.dst = append(append(s.dst, v.opts...), 0)
	}

	return nil
}

// head appends an element's type and name.
func (s *bsonSink) head(tag byte, k key) error {
	s.dst = append(s.dst, tag)

	if k.index >= 0 {
		s.dst = strconv.AppendInt(s.dst, int64(k.index), 10)
	} else {
		if strings.IndexByte(k.name, 0) >= 0 {
			return lazyerrors.Errorf("a field name holds a NUL byte")
		}

		s.dst = append(s.dst, k.name...)
	}

	s.dst = append(s.dst, 0)

	return nil
}

func (s *bsonSink) reset() {
	s.dst = s.dst[:s.base]
	s.starts = s.starts[:0]
}

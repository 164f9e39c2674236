// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedReadpathOff is true when FERRETDB_EMBEDDED_READPATH=off: results the backend proved exact take FerretDB's
// own path (decoded into types.Document, through its iterators and cursor, converted to BSON), for comparing with it.
// FERRETDB_EMBEDDED_PUSHDOWN=off turns it off too (nothing is then proved exact).
var embeddedReadpathOff = embedded.ReadpathOff

// embeddedBuffers holds the buffers first batches are written into (the reply copies them).
var embeddedBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// embeddedFindReply answers a find whose result the backend proved exact (the filter, sort, skip and limit were
// applied in SQL) straight from storage: each document goes from SQLite's JSON to the reply's BSON, without a
// types.Document and without filtering, sorting or limiting again in Go.
//
// It returns the reply when the first batch holds the whole result (or the find asked for a single batch). When
// the result is longer than the first batch, it returns an iterator that yields the documents it read (decoded)
// and then the rest, for FerretDB's own path and its cursor. It returns neither when the fast path does not apply
// (then the query result is untouched).
//
// A projection is applied on the way when it is an inclusion of top-level fields (embeddedInclusion); any other
// projection leaves the find to FerretDB's own path.
func embeddedFindReply(queryRes *backends.QueryResult, params *common.FindParams) (*wire.OpMsg, types.DocumentsIterator, error) { //nolint:lll // for readability
	if embeddedReadpathOff || !queryRes.PushedDown || params.Tailable || params.ShowRecordId || params.BatchSize <= 0 {
		return nil, nil, nil
	}

	var keep func(name string) bool

	if params.Projection.Len() != 0 {
		var keepsID, ok bool
		if keep, keepsID, ok = embeddedInclusion(params.Projection); !ok {
			return nil, nil, nil
		}

		// When the result is longer than the first batch, the documents read go to FerretDB's own path, which
		// projects them again (and, the result being exact, no longer filters them: readpath.patch). An inclusion
		// that keeps _id gives the same document again; one without _id cannot be applied twice. So without _id,
		// only a result known to fit in the first batch is read here.
		if !keepsID && !params.SingleBatch && (params.Limit <= 0 || params.Limit > params.BatchSize) {
			return nil, nil, nil
		}
	}

	bi, ok := queryRes.Iter.(backends.BSONIterator)
	if !ok {
		return nil, nil, nil
	}

	bufp := embeddedBuffers.Get().(*[]byte)
	reuse := true // not when decoded documents may share its bytes

	defer func() {
		if reuse && cap(*bufp) <= 4<<20 {
			embeddedBuffers.Put(bufp)
		}
	}()

	buf := (*bufp)[:0]
	var ends []int
	var done bool

	for int64(len(ends)) < params.BatchSize {
		var err error
		if buf, err = bi.AppendNextBSON(buf, keep); err != nil {
			*bufp = buf

			if errors.Is(err, iterator.ErrIteratorDone) {
				done = true
				break
			}

			queryRes.Iter.Close()

			return nil, nil, lazyerrors.Error(err)
		}

		ends = append(ends, len(buf))
	}

	*bufp = buf

	// SQL's LIMIT is exact for a pushed-down result: having read Limit documents, there are no more.
	if params.Limit > 0 && int64(len(ends)) >= params.Limit {
		done = true
	}

	docs := func(yield func(wirebson.RawDocument) error) error {
		start := 0
		for _, end := range ends {
			if err := yield(wirebson.RawDocument(buf[start:end])); err != nil {
				return err
			}

			start = end
		}

		return nil
	}

	if !done && !params.SingleBatch {
		reuse = false
		read := make([]*types.Document, 0, len(ends))

		if err := docs(func(raw wirebson.RawDocument) error {
			doc, err := bson.ToDocument(raw)
			read = append(read, doc)

			return err
		}); err != nil {
			queryRes.Iter.Close()
			return nil, nil, lazyerrors.Error(err)
		}

		return nil, &embeddedPrefixIterator{docs: read, rest: queryRes.Iter}, nil
	}

	queryRes.Iter.Close()

	firstBatch := wirebson.MakeArray(len(ends))
	if err := docs(func(raw wirebson.RawDocument) error { return firstBatch.Add(raw) }); err != nil {
		return nil, nil, lazyerrors.Error(err)
	}

	reply, err := wirebson.NewDocument(
		"cursor", wirebson.MustDocument(
			"firstBatch", firstBatch,
			"id", int64(0),
			"ns", params.DB+"."+params.Collection,
		),
		"ok", float64(1),
	)
	if err != nil {
		return nil, nil, lazyerrors.Error(err)
	}

	msg, err := wire.NewOpMsg(reply) // encodes (copies) the documents now
	if err != nil {
		return nil, nil, lazyerrors.Error(err)
	}

	return msg, nil, nil
}

// embeddedInclusion returns what an inclusion projection of top-level fields keeps (common.ProjectDocument's
// result for such a projection: _id unless it is excluded, then the included fields present, in the document's
// order), and whether it keeps _id. It returns ok false for every other projection (exclusions, paths, positional
// and operator projections, new values, an empty field name): those take FerretDB's own path, with its checks.
func embeddedInclusion(projection *types.Document) (keep func(name string) bool, keepsID bool, ok bool) {
	keepsID = true
	names := make([]string, 0, projection.Len())

	for _, name := range projection.Keys() {
		v, _ := projection.Get(name)

		include, isFlag := embeddedProjectionFlag(v)
		if !isFlag {
			return nil, false, false
		}

		if name == "_id" {
			keepsID = include
			continue
		}

		if !include || name == "" || strings.ContainsAny(name, ".$") || slices.Contains(names, name) {
			return nil, false, false
		}

		names = append(names, name)
	}

	// {_id: ...} alone is not an inclusion of fields ({_id: 0} excludes _id only).
	if len(names) == 0 {
		return nil, false, false
	}

	return func(name string) bool {
		if name == "_id" {
			return keepsID
		}

		return slices.Contains(names, name)
	}, keepsID, true
}

// embeddedProjectionFlag returns whether a projection value includes its field, for the values that only say that
// (true, false, and numbers: 0 excludes, any other number includes, as common.ValidateProjection reads them).
func embeddedProjectionFlag(v any) (include, ok bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int32:
		return v != 0, true
	case int64:
		return v != 0, true
	case float64:
		if math.IsNaN(v) {
			return false, false
		}

		return v != 0, true
	default:
		return false, false
	}
}

// embeddedPrefixIterator yields documents already read, then those of the rest.
type embeddedPrefixIterator struct {
	docs []*types.Document
	rest types.DocumentsIterator
}

// Next implements iterator.Interface.
func (iter *embeddedPrefixIterator) Next() (struct{}, *types.Document, error) {
	if len(iter.docs) > 0 {
		doc := iter.docs[0]
		iter.docs = iter.docs[1:]

		return struct{}{}, doc, nil
	}

	return iter.rest.Next()
}

// Close implements iterator.Interface.
func (iter *embeddedPrefixIterator) Close() {
	iter.docs = nil
	iter.rest.Close()
}

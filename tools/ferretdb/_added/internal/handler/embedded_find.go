// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"errors"
	"os"
	"sync"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedReadpathOff is true when FERRETDB_EMBEDDED_READPATH=off: results the backend proved exact take FerretDB's
// own path (decoded into types.Document, filtered, sorted, skipped and limited again in Go, converted to BSON), for
// comparing with it. FERRETDB_EMBEDDED_PUSHDOWN=off turns it off too (nothing is then proved exact).
var embeddedReadpathOff = os.Getenv("FERRETDB_EMBEDDED_READPATH") == "off"

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
func embeddedFindReply(queryRes *backends.QueryResult, params *common.FindParams) (*wire.OpMsg, types.DocumentsIterator, error) { //nolint:lll // for readability
	if embeddedReadpathOff || !queryRes.PushedDown || params.Projection.Len() != 0 || params.Tailable ||
		params.ShowRecordId || params.BatchSize <= 0 {
		return nil, nil, nil
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
		if buf, err = bi.AppendNextBSON(buf); err != nil {
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

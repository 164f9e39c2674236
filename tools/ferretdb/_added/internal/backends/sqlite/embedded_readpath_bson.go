// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"bytes"
	"context"
	"unsafe"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedReadpathCheck is true when FERRETDB_EMBEDDED_READPATH=check: every document handed out as BSON is also
// decoded by FerretDB's own decoder (sjson.Unmarshal) and converted as FerretDB converts it, and the two encodings
// must be equal byte for byte (else the request fails). For the tests; it costs more than either path.
var embeddedReadpathCheck = embedded.ReadpathCheck

// AppendNextBSON implements backends.BSONIterator (for iterators of documents, not of record IDs alone).
func (iter *queryIterator) AppendNextBSON(dst []byte, keep func(name string) bool) ([]byte, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	if iter.rows == nil {
		return dst, iterator.ErrIteratorDone
	}

	if err := context.Cause(iter.ctx); err != nil {
		iter.close()
		return dst, lazyerrors.Error(err)
	}

	if !iter.rows.Next() {
		err := iter.rows.Err()

		iter.close()

		if err == nil {
			err = iterator.ErrIteratorDone
		}

		return dst, lazyerrors.Error(err)
	}

	columns, err := iter.rows.Columns()
	if err != nil {
		iter.close()
		return dst, lazyerrors.Error(err)
	}

	if iter.onlyRecordIDs || len(columns) != 1 || columns[0] != metadata.DefaultColumn {
		iter.close()
		return dst, lazyerrors.Errorf("cannot hand out columns %v as BSON", columns)
	}

	// The driver returns TEXT as a string: read in place, not copied.
	var text string
	if err = iter.rows.Scan(&text); err != nil {
		iter.close()
		return dst, lazyerrors.Error(err)
	}

	if dst, err = appendStoredBSON(dst, stored(text), keep); err != nil {
		iter.close()
	}

	return dst, err
}

// stored returns the bytes of a document's JSON text as the driver returns TEXT (a string of its own): read in place,
// not copied. The readers (sjson) do not keep them. The iterators that read stored documents (this file's, a merge's,
// a checked read's) all take them through it.
func stored(text string) []byte {
	return unsafe.Slice(unsafe.StringData(text), len(text))
}

// appendStoredBSON appends the BSON of a stored document's JSON text (the top-level fields keep keeps, when not nil)
// to dst; with FERRETDB_EMBEDDED_READPATH=check, compared with FerretDB's own encoding. The iterators that hand out
// BSON (this file's, a merge's, a checked read's) all append through it.
func appendStoredBSON(dst, data []byte, keep func(name string) bool) ([]byte, error) {
	start := len(dst)

	dst, err := sjson.AppendBSON(dst, data, keep)
	if err != nil {
		return dst, lazyerrors.Error(err)
	}

	if embeddedReadpathCheck {
		if err = checkBSON(data, dst[start:], keep); err != nil {
			return dst, err
		}
	}

	return dst, nil
}

// checkBSON compares the fast encoding of a stored document with FerretDB's own path (its fields that keep keeps,
// when keep is not nil).
func checkBSON(data, fast []byte, keep func(name string) bool) error {
	doc, err := sjson.Unmarshal(data)
	if err != nil {
		return lazyerrors.Error(err)
	}

	if keep != nil {
		for _, name := range doc.Keys() {
			if !keep(name) {
				doc.Remove(name)
			}
		}
	}

	wdoc, err := bson.FromDocument(doc)
	if err != nil {
		return lazyerrors.Error(err)
	}

	slow, err := wdoc.Encode()
	if err != nil {
		return lazyerrors.Error(err)
	}

	if !bytes.Equal(slow, fast) {
		return lazyerrors.Errorf("ferretdb-embedded: BSON of %s differs: fast %x, FerretDB's %x", data, fast, slow)
	}

	return nil
}

// AppendNextBSON implements backends.BSONIterator.
func (iter *txIterator) AppendNextBSON(dst []byte, keep func(name string) bool) ([]byte, error) {
	bi, ok := iter.DocumentsIterator.(backends.BSONIterator)
	if !ok {
		iter.Close()
		return dst, lazyerrors.Errorf("%T cannot hand out BSON", iter.DocumentsIterator)
	}

	res, err := bi.AppendNextBSON(dst, keep)
	if err != nil {
		iter.end()
	}

	return res, err
}

// check interfaces
var (
	_ backends.BSONIterator = (*queryIterator)(nil)
	_ backends.BSONIterator = (*txIterator)(nil)
)

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).
//
// MongoDB's single-document guarantees on the embedded FerretDB.
//
// FerretDB 1.24 runs every update, findAndModify and filtered delete as a read followed by a write, with nothing
// held in between: two concurrent `$inc` of one document read the same value and one increment is lost, two
// conditional updates both match, two findAndModify removes both return the document. Here each such statement
// runs under a lock of what it can touch, so no two statements that may touch the same document overlap: its read (a
// new SQLite read transaction, begun after the lock is taken) sees every earlier statement's committed write, and
// nothing rewrites or deletes what it read before it writes. One program owns its SQLite files, so this holds for
// every client of the program.
//
// What a statement locks: a statement whose filter has a top-level `_id` equal to a string, ObjectId or number can
// only match (or upsert) that one document, so it shares its collection's lock with others like it and holds that
// document's lock alone; any other statement holds its collection's lock alone. Reads (find, aggregate, count,
// distinct, getMore) take no lock: they read committed data. Inserts take none: a unique index decides them in
// SQLite, and an upsert whose insert loses to one runs once more (as MongoDB retries it) and then finds that
// document. drop and renameCollection hold their collections' locks alone, dropDatabase its database's, so no
// statement writes back what it read from a collection that was dropped, renamed or replaced in between.
//
// Lock order, everywhere: the database's lock, then collections' in name order, then a document's. Locks are held
// only inside a handler: released before the reply is written, never kept for a cursor. Waiting for one ends with the
// request's context (the client closed its connection, or a findAndModify's maxTimeMS ran out).
//
// FERRETDB_EMBEDDED_ATOMIC=off restores FerretDB's own behaviour (no locks, no marker in buildInfo).
package handler

import (
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedAtomicOff is true when FERRETDB_EMBEDDED_ATOMIC=off: FerretDB's own read-then-write statements.
var embeddedAtomicOff = embedded.AtomicOff

// embeddedNoLock is what the lock functions return with the switch off.
func embeddedNoLock() {}

// embeddedLockStatement takes the locks for one read-modify-write statement on collection coll of database dbName
// with the given filter, and returns the function that releases them. A filter with a top-level `_id` equal to a
// string, ObjectId or number can only match (or upsert) the document with that `_id`: such statements share the
// collection's lock and each takes its document's, so statements on different documents run side by side. Any
// other filter takes the collection's lock alone.
func embeddedLockStatement(ctx context.Context, dbName, coll string, filter *types.Document) (func(), error) {
	if embeddedAtomicOff {
		return embeddedNoLock, nil
	}

	var set embeddedLockSet
	if err := set.take(ctx, embeddedLockKey{db: dbName}, 1); err != nil {
		return nil, err
	}

	doc, ok := embeddedDocKey(filter)
	if !ok {
		if err := set.take(ctx, embeddedLockKey{db: dbName, coll: coll}, embeddedWholeWeight); err != nil {
			return nil, err
		}

		return set.release, nil
	}

	if err := set.take(ctx, embeddedLockKey{db: dbName, coll: coll}, 1); err != nil {
		return nil, err
	}

	if err := set.take(ctx, embeddedLockKey{db: dbName, coll: coll, doc: doc}, 1); err != nil {
		return nil, err
	}

	return set.release, nil
}

// embeddedDocKey is the document lock's name for a filter that names one `_id`, or false. Values equal in MongoDB's
// comparison get the same name (int32 1, int64 1 and double 1.0; -0.0 and 0.0); different values may share one
// (int64 beyond 2^53), which only serialises more.
func embeddedDocKey(filter *types.Document) (string, bool) {
	if !filter.Has("_id") {
		return "", false
	}

	v, _ := filter.Get("_id")
	if d, isDoc := v.(*types.Document); isDoc {
		if d.Len() != 1 || !d.Has("$eq") {
			return "", false
		}

		v, _ = d.Get("$eq")
	}

	var number float64

	switch v := v.(type) {
	case string:
		return "s" + v, true
	case types.ObjectID:
		return "o" + hex.EncodeToString(v[:]), true
	case int32:
		number = float64(v)
	case int64:
		number = float64(v)
	case float64:
		number = v
	default:
		return "", false
	}

	if number == 0 {
		number = 0 // -0.0 too
	}

	return "n" + strconv.FormatFloat(number, 'g', -1, 64), true
}

// embeddedLockCollections takes collections colls of database dbName for themselves (in name order), for drop and
// renameCollection, and returns the function that releases them.
func embeddedLockCollections(ctx context.Context, dbName string, colls ...string) (func(), error) {
	if embeddedAtomicOff {
		return embeddedNoLock, nil
	}

	colls = slices.Clone(colls)
	slices.Sort(colls)
	colls = slices.Compact(colls)

	var set embeddedLockSet
	if err := set.take(ctx, embeddedLockKey{db: dbName}, 1); err != nil {
		return nil, err
	}

	for _, c := range colls {
		if err := set.take(ctx, embeddedLockKey{db: dbName, coll: c}, embeddedWholeWeight); err != nil {
			return nil, err
		}
	}

	return set.release, nil
}

// embeddedLockDatabase takes database dbName for itself (no statement runs in it meanwhile), for dropDatabase.
func embeddedLockDatabase(ctx context.Context, dbName string) (func(), error) {
	if embeddedAtomicOff {
		return embeddedNoLock, nil
	}

	var set embeddedLockSet
	if err := set.take(ctx, embeddedLockKey{db: dbName}, embeddedWholeWeight); err != nil {
		return nil, err
	}

	return set.release, nil
}

// embeddedIsDuplicateKey tells whether err is an insert's unique-key violation.
func embeddedIsDuplicateKey(err error) bool {
	var be *backends.Error
	return errors.As(err, &be) && be.Code() == backends.ErrorCodeInsertDuplicateID
}

// embeddedUpdateDocument runs the update statements one at a time, each under its locks (embeddedLockStatement): as
// on MongoDB, each statement is atomic on its own, not the command. An upsert whose insert hit a unique key (an insert took the
// key between its read and its write: inserts take no lock) runs once more, and then finds that document.
func (h *Handler) embeddedUpdateDocument(ctx context.Context, params *common.UpdateParams) (int32, int32, *types.Array, error) { //nolint:lll // as updateDocument
	if embeddedAtomicOff || len(params.Updates) == 0 {
		return h.updateDocument(ctx, params)
	}

	var matched, modified int32
	upserted := types.MakeArray(0)

	for i := range params.Updates {
		one := *params
		one.Updates = params.Updates[i : i+1]

		m, mod, up, err := h.embeddedUpdateStatement(ctx, &one)
		if err != nil && one.Updates[0].Upsert && embeddedIsDuplicateKey(err) {
			m, mod, up, err = h.embeddedUpdateStatement(ctx, &one)
		}

		if err != nil {
			return 0, 0, nil, err
		}

		matched += m
		modified += mod

		// Each upserted document's "index" (embedded_upserted_index.go: the statement's, or FerretDB's count).
		for j := 0; j < up.Len(); j++ {
			doc, err := up.Get(j)
			if err != nil {
				return 0, 0, nil, lazyerrors.Error(err)
			}

			d := doc.(*types.Document)
			d.Set("index", embeddedUpsertedIndex(i, upserted.Len()))
			upserted.Append(d)
		}
	}

	return matched, modified, upserted, nil
}

func (h *Handler) embeddedUpdateStatement(ctx context.Context, params *common.UpdateParams) (int32, int32, *types.Array, error) { //nolint:lll // as updateDocument
	unlock, err := embeddedLockStatement(ctx, params.DB, params.Collection, params.Updates[0].Filter)
	if err != nil {
		return 0, 0, nil, lazyerrors.Error(err)
	}
	defer unlock()

	return h.updateDocument(ctx, params)
}

// embeddedFindAndModifyDocument runs findAndModify under its locks (embeddedLockStatement); maxTimeMS bounds the wait and the
// statement together. An upsert whose insert hit a unique key runs once more (see embeddedUpdateDocument).
func (h *Handler) embeddedFindAndModifyDocument(ctx context.Context, params *common.FindAndModifyParams) (*findAndModifyResult, error) { //nolint:lll // as findAndModifyDocument
	if embeddedAtomicOff {
		return h.findAndModifyDocument(ctx, params)
	}

	if params.MaxTimeMS != 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(params.MaxTimeMS)*time.Millisecond)
		defer cancel()
	}

	res, err := h.embeddedFindAndModifyStatement(ctx, params)
	if err != nil && params.Upsert && !params.Remove && embeddedIsDuplicateKey(err) {
		res, err = h.embeddedFindAndModifyStatement(ctx, params)
	}

	return res, err
}

func (h *Handler) embeddedFindAndModifyStatement(ctx context.Context, params *common.FindAndModifyParams) (*findAndModifyResult, error) { //nolint:lll // as findAndModifyDocument
	unlock, err := embeddedLockStatement(ctx, params.DB, params.Collection, params.Query)
	if err != nil {
		if params.MaxTimeMS != 0 && errors.Is(err, context.DeadlineExceeded) {
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrMaxTimeMSExpired,
				"operation exceeded time limit",
				"findAndModify",
			)
		}

		return nil, lazyerrors.Error(err)
	}
	defer unlock()

	return h.findAndModifyDocument(ctx, params)
}

// embeddedExecDelete runs one delete statement under its locks (embeddedLockStatement), also one by `_id`: FerretDB
// reads that first too, and a findAndModify remove must not return a document a delete reports deleted.
func (h *Handler) embeddedExecDelete(ctx context.Context, dbName, collName string, c backends.Collection, p *common.Delete) (int32, error) { //nolint:lll // as execDelete
	unlock, err := embeddedLockStatement(ctx, dbName, collName, p.Filter)
	if err != nil {
		return 0, lazyerrors.Error(err)
	}
	defer unlock()

	return h.execDelete(ctx, c, p)
}

// embeddedAtomicWrites: buildInfo says `embeddedAtomicWrites: true` while the locks are on; the service checks it at
// start to know it runs on a database with MongoDB's single-document guarantees.
func init() {
	embeddedMarker(func(doc *types.Document) {
		if !embeddedAtomicOff {
			doc.Set("embeddedAtomicWrites", true)
		}
	})
}

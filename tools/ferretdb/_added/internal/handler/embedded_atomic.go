// Added by ferretdb-embedded (the project's patch; not part of FerretDB).
//
// MongoDB's single-document guarantees on the embedded FerretDB.
//
// FerretDB 1.24 runs every update, findAndModify and filtered delete as a read followed by a write, with nothing
// held in between: two concurrent `$inc` of one document read the same value and one increment is lost, two
// conditional updates both match, two findAndModify removes both return the document. Here each such statement
// runs under its collection's lock, so one statement at a time reads and writes a collection: its read (a new
// SQLite read transaction, begun after the lock is taken) sees every earlier statement's committed write, and
// nothing rewrites or deletes what it read before it writes. One program owns its SQLite files, so this holds for
// every client of the program. SQLite runs one write at a time anyway; the lock adds the statement's read (and
// FerretDB's work on the documents) to that serial part, per collection.
//
// Not under the lock: reads (find, aggregate, count, distinct, getMore read committed data), and inserts (a unique
// index decides them in SQLite; an upsert whose insert loses to one is run once more, as MongoDB retries it).
// drop, renameCollection and dropDatabase take the locks too, so no statement writes back what it read from a
// collection that was dropped, renamed or replaced in between.
//
// Lock order, everywhere: the database's lock (shared by statements, drop and rename; exclusive for dropDatabase),
// then collection locks in name order. Locks are held only inside a handler: released before the reply is written,
// never kept for a cursor. Waiting for one ends with the request's context (the client closed its connection, or a
// findAndModify's maxTimeMS ran out).
//
// FERRETDB_EMBEDDED_ATOMIC=off restores FerretDB's own behaviour (no locks, no marker in buildInfo).
package handler

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/FerretDB/wire"
	"golang.org/x/sync/semaphore"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedAtomicOff is true when FERRETDB_EMBEDDED_ATOMIC=off: FerretDB's own read-then-write statements.
var embeddedAtomicOff = os.Getenv("FERRETDB_EMBEDDED_ATOMIC") == "off"

// embeddedDatabaseWeight is the weight of a database's lock: each holder of a collection lock holds one unit,
// dropDatabase all of them.
const embeddedDatabaseWeight = 1 << 30

// embeddedLockKey names a lock: a collection's, or the database's own (coll "").
type embeddedLockKey struct {
	db, coll string
}

// embeddedLockEntry is a lock in use (or waited for) by refs requests; unused ones leave the table.
type embeddedLockEntry struct {
	sem  *semaphore.Weighted // FIFO, and its Acquire ends with the context
	refs int
}

var embeddedLocks = struct {
	mu      sync.Mutex
	entries map[embeddedLockKey]*embeddedLockEntry
}{entries: map[embeddedLockKey]*embeddedLockEntry{}}

// embeddedHeld is one lock taken.
type embeddedHeld struct {
	key embeddedLockKey
	e   *embeddedLockEntry
	n   int64
}

func embeddedAcquire(ctx context.Context, key embeddedLockKey, n int64) (*embeddedHeld, error) {
	embeddedLocks.mu.Lock()
	e := embeddedLocks.entries[key]
	if e == nil {
		size := int64(1)
		if key.coll == "" {
			size = embeddedDatabaseWeight
		}
		e = &embeddedLockEntry{sem: semaphore.NewWeighted(size)}
		embeddedLocks.entries[key] = e
	}
	e.refs++
	embeddedLocks.mu.Unlock()

	held := &embeddedHeld{key: key, e: e, n: n}
	if err := e.sem.Acquire(ctx, n); err != nil {
		held.n = 0
		held.release()
		return nil, err
	}

	return held, nil
}

func (held *embeddedHeld) release() {
	if held.n > 0 {
		held.e.sem.Release(held.n)
	}

	embeddedLocks.mu.Lock()
	if held.e.refs--; held.e.refs == 0 {
		delete(embeddedLocks.entries, held.key)
	}
	embeddedLocks.mu.Unlock()
}

// embeddedUnlock releases locks in the reverse order of taking them.
func embeddedUnlock(held []*embeddedHeld) {
	for i := len(held) - 1; i >= 0; i-- {
		held[i].release()
	}
}

// embeddedLock takes the locks of collections colls of database dbName (and the database's, shared) and returns
// the function that releases them. With the switch off it takes nothing.
func embeddedLock(ctx context.Context, dbName string, colls ...string) (func(), error) {
	if embeddedAtomicOff {
		return func() {}, nil
	}

	colls = slices.Clone(colls)
	slices.Sort(colls)
	colls = slices.Compact(colls)

	held := make([]*embeddedHeld, 0, len(colls)+1)

	h, err := embeddedAcquire(ctx, embeddedLockKey{db: dbName}, 1)
	if err != nil {
		return nil, err
	}

	held = append(held, h)

	for _, c := range colls {
		if h, err = embeddedAcquire(ctx, embeddedLockKey{db: dbName, coll: c}, 1); err != nil {
			embeddedUnlock(held)
			return nil, err
		}

		held = append(held, h)
	}

	return func() { embeddedUnlock(held) }, nil
}

// embeddedLockDatabase takes database dbName's lock exclusively (no statement runs in it meanwhile).
func embeddedLockDatabase(ctx context.Context, dbName string) (func(), error) {
	if embeddedAtomicOff {
		return func() {}, nil
	}

	h, err := embeddedAcquire(ctx, embeddedLockKey{db: dbName}, embeddedDatabaseWeight)
	if err != nil {
		return nil, err
	}

	return h.release, nil
}

// embeddedIsDuplicateKey tells whether err is an insert's unique-key violation.
func embeddedIsDuplicateKey(err error) bool {
	var be *backends.Error
	return errors.As(err, &be) && be.Code() == backends.ErrorCodeInsertDuplicateID
}

// embeddedUpdateDocument runs the update statements one at a time, each under its collection's lock (as MongoDB,
// each statement is atomic on its own, not the command). An upsert whose insert hit a unique key (an insert took the
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

		// FerretDB numbers the upserted documents in order ("index"), not by statement; so do we.
		for j := 0; j < up.Len(); j++ {
			doc, err := up.Get(j)
			if err != nil {
				return 0, 0, nil, lazyerrors.Error(err)
			}

			d := doc.(*types.Document)
			d.Set("index", int32(upserted.Len()))
			upserted.Append(d)
		}
	}

	return matched, modified, upserted, nil
}

func (h *Handler) embeddedUpdateStatement(ctx context.Context, params *common.UpdateParams) (int32, int32, *types.Array, error) { //nolint:lll // as updateDocument
	unlock, err := embeddedLock(ctx, params.DB, params.Collection)
	if err != nil {
		return 0, 0, nil, lazyerrors.Error(err)
	}
	defer unlock()

	return h.updateDocument(ctx, params)
}

// embeddedFindAndModifyDocument runs findAndModify under its collection's lock; maxTimeMS bounds the wait and the
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
	unlock, err := embeddedLock(ctx, params.DB, params.Collection)
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

// embeddedExecDelete runs one delete statement under its collection's lock (also one by `_id`: FerretDB reads it
// first too, and a findAndModify remove must not return a document a delete reports deleted).
func (h *Handler) embeddedExecDelete(ctx context.Context, dbName, collName string, c backends.Collection, p *common.Delete) (int32, error) { //nolint:lll // as execDelete
	unlock, err := embeddedLock(ctx, dbName, collName)
	if err != nil {
		return 0, lazyerrors.Error(err)
	}
	defer unlock()

	return h.execDelete(ctx, c, p)
}

// embeddedBuildInfo answers buildInfo with `embeddedAtomicWrites: true` (before `ok`) while the locks are on: the
// service checks it at start to know it runs on a database with MongoDB's single-document guarantees.
func embeddedBuildInfo(doc *types.Document) (*wire.OpMsg, error) {
	if !embeddedAtomicOff {
		ok, _ := doc.Get("ok")
		doc.Remove("ok")
		doc.Set("embeddedAtomicWrites", true)
		doc.Set("ok", ok)
	}

	return documentOpMsg(doc)
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// The replica set's server parameters (setParameter), as MongoDB names them.
var (
	// embeddedTxnLifetime: a transaction still open this long after it started is aborted
	// (transactionLifetimeLimitSeconds, 60 s by default as on MongoDB).
	embeddedTxnLifetime atomic.Int64

	// embeddedTxnLockWait: the longest a transaction waits for a database's write gate before it gets WriteConflict
	// (maxTransactionLockRequestTimeoutMillis, in nanoseconds). Negative, the default here: no bound of its own, the
	// transaction waits its turn until its time limit or its command's maxTimeMS (MongoDB's -1). MongoDB's default is
	// 5 ms, for document locks held for microseconds; here a transaction holds the gate from its first write to its
	// commit, its client's round trips in between, so a fixed short bound would fail transactions that only queue.
	embeddedTxnLockWait atomic.Int64
)

// embeddedSessionIdle: a session unused this long is forgotten (MongoDB's logicalSessionTimeoutMinutes).
const embeddedSessionIdle = time.Duration(logicalSessionTimeoutMinutes) * time.Minute

// embeddedOrphanGrace: a transaction whose client's connection closed is aborted when no command of it arrives on
// another connection within this time. A driver sends the command again at once after a network error (a commit
// above all), on a new connection; a client that is gone never does.
const embeddedOrphanGrace = 2 * time.Second

func init() {
	embeddedTxnLifetime.Store(int64(60 * time.Second))
	embeddedTxnLockWait.Store(-int64(time.Millisecond))
}

type embeddedTxnState int

const (
	embeddedTxnInProgress embeddedTxnState = iota
	embeddedTxnCommitted
	embeddedTxnAborted
)

// embeddedSession is a client session (lsid): its newest txnNumber, and the transaction or retryable write it names.
type embeddedSession struct {
	id string // lsid.id, hex

	mu        sync.Mutex
	lastUse   time.Time
	txnNumber int64
	txn       *embeddedTxn   // the transaction of txnNumber, if it is one
	retry     *embeddedRetry // the retryable write of txnNumber, if it is one
}

// embeddedRetry is a retryable write: its answer, once it has one.
type embeddedRetry struct {
	done  chan struct{} // closed when the first run ended
	reply *wire.OpMsg   // nil when the first run wrote nothing (it failed): then it runs again
}

// embeddedTxn is a transaction of a session.
type embeddedTxn struct {
	h       *Handler // whose cursors it closes
	session *embeddedSession
	number  int64
	started time.Time
	sql     *fsql.Txn
	cancel  context.CancelFunc

	// run: one command of the transaction at a time; the transaction ends under it.
	run sync.Mutex

	// ran: commands of it that ran (a fail point's error is not one); orphaned: when the connection of its last
	// command closed (UnixNano; 0 while it has one).
	ran      atomic.Int64
	orphaned atomic.Int64

	// Read and written under run, read by the reaper under session.mu.
	state   atomic.Int32
	cause   string              // why it was aborted, for NoSuchTransaction's message
	gates   map[string]func()   // the write gates it holds, by database
	cursors []int64             // the cursors it opened: closed when it ends
	conn    atomic.Pointer[any] // the connection of its last command
}

var embeddedSessions = &embeddedSessionTable{m: map[string]*embeddedSession{}}

type embeddedSessionTable struct {
	mu     sync.Mutex
	m      map[string]*embeddedSession
	reaper sync.Once
}

// embeddedSessionOf is the session a command names in its lsid (nil without one).
func embeddedSessionOf(doc *wirebson.Document) (*embeddedSession, error) {
	v := doc.Get("lsid")
	if v == nil {
		return nil, nil //nolint:nilnil // no session
	}

	lsid, ok := v.(wirebson.AnyDocument)
	if !ok {
		return nil, embeddedErrorf(14, "lsid must be a document") // TypeMismatch
	}

	d, err := lsid.Decode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	id, ok := d.Get("id").(wirebson.Binary)
	if !ok {
		return nil, embeddedErrorf(14, "lsid.id must be a UUID") // TypeMismatch
	}

	return embeddedSessions.get(hex.EncodeToString(id.B)), nil
}

func (t *embeddedSessionTable) get(id string) *embeddedSession {
	t.reaper.Do(func() { go t.reap() })

	t.mu.Lock()
	defer t.mu.Unlock()

	s := t.m[id]
	if s == nil {
		s = &embeddedSession{id: id, txnNumber: -1}
		t.m[id] = s
	}

	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()

	return s
}

// all returns the sessions (a copy of the list).
func (t *embeddedSessionTable) all() []*embeddedSession {
	t.mu.Lock()
	defer t.mu.Unlock()

	res := make([]*embeddedSession, 0, len(t.m))
	for _, s := range t.m {
		res = append(res, s)
	}

	return res
}

// reap aborts the transactions past their lifetime and forgets idle sessions, for as long as the program runs.
func (t *embeddedSessionTable) reap() {
	for range time.Tick(100 * time.Millisecond) {
		now := time.Now()
		lifetime := time.Duration(embeddedTxnLifetime.Load())

		for _, s := range t.all() {
			s.mu.Lock()
			txn, idle := s.txn, now.Sub(s.lastUse) > embeddedSessionIdle
			s.mu.Unlock()

			if txn != nil && txn.inProgress() {
				cause := ""

				switch orphaned := txn.orphaned.Load(); {
				case now.Sub(txn.started) > lifetime:
					cause = "it exceeded its time limit (transactionLifetimeLimitSeconds)"
				case orphaned != 0 && now.Sub(time.Unix(0, orphaned)) > embeddedOrphanGrace:
					cause = "its client's connection closed"
				}

				// A command still running in it (waiting for a gate, reading) ends first: try again next time.
				if cause != "" && txn.run.TryLock() {
					txn.abort(cause)
					txn.run.Unlock()
				}
			}

			if idle && (txn == nil || !txn.inProgress()) {
				t.mu.Lock()
				delete(t.m, s.id)
				t.mu.Unlock()
			}
		}
	}
}

// connClosed notes the transactions whose last command came over conn: the reaper aborts those that no command of
// reaches within embeddedOrphanGrace (a client that drops its connection in the middle of a transaction loses it;
// MongoDB keeps it until its time limit, the contract asks for this).
func (t *embeddedSessionTable) connClosed(conn any) {
	for _, s := range t.all() {
		s.mu.Lock()
		txn := s.txn
		s.mu.Unlock()

		if txn == nil || !txn.inProgress() {
			continue
		}

		if c := txn.conn.Load(); c != nil && *c == conn {
			txn.orphaned.CompareAndSwap(0, time.Now().UnixNano())
		}
	}
}

// end aborts the session's transaction in progress and forgets the session (endSessions, killSessions).
func (t *embeddedSessionTable) end(s *embeddedSession) {
	s.mu.Lock()
	txn := s.txn
	s.mu.Unlock()

	if txn != nil && txn.inProgress() {
		txn.run.Lock()
		txn.abort("its session was ended")
		txn.run.Unlock()
	}

	t.mu.Lock()
	delete(t.m, s.id)
	t.mu.Unlock()
}

func (txn *embeddedTxn) inProgress() bool {
	return embeddedTxnState(txn.state.Load()) == embeddedTxnInProgress
}

// transaction returns the session's transaction number for a command of a transaction (autocommit: false), starting
// it when start is true, or the error MongoDB answers. Called under s.mu.
func (s *embeddedSession) transaction(h *Handler, number int64, start bool) (*embeddedTxn, error) {
	if number < s.txnNumber {
		return nil, embeddedErrorf(
			embeddedCodeTransactionTooOld,
			"Cannot start transaction %d on session %s because a newer transaction %d has already started.",
			number, s.id, s.txnNumber,
		)
	}

	if !start {
		if number > s.txnNumber || s.txn == nil || s.txn.number != number {
			return nil, embeddedErrorf(
				embeddedCodeNoSuchTransaction,
				"Given transaction number %d does not match any in-progress transactions. "+
					"The active transaction number is %d",
				number, s.txnNumber,
			)
		}

		return s.txn, nil
	}

	// Sent again after a fail point failed its first command (nothing of it ran): the same transaction starts.
	if number == s.txnNumber && s.txn != nil && s.txn.number == number && s.txn.inProgress() && s.txn.ran.Load() == 0 {
		return s.txn, nil
	}

	if number == s.txnNumber {
		return nil, embeddedErrorf(
			embeddedCodeConflictingOperationInProgress,
			"Cannot start a transaction with txnNumber %d on session %s: it was used already",
			number, s.id,
		)
	}

	s.endPrevious()

	ctx, cancel := context.WithCancel(context.Background())
	s.txnNumber, s.retry = number, nil
	s.txn = &embeddedTxn{
		h:       h,
		session: s,
		number:  number,
		started: time.Now(),
		sql:     fsql.NewTxn(ctx),
		cancel:  cancel,
		gates:   map[string]func(){},
	}

	return s.txn, nil
}

// endPrevious aborts the session's transaction in progress: a newer transaction or retryable write replaces it, as
// on MongoDB. Called under s.mu.
func (s *embeddedSession) endPrevious() {
	if old := s.txn; old != nil && old.inProgress() {
		go func() {
			old.run.Lock()
			defer old.run.Unlock()

			old.abort("a newer transaction or retryable write of its session started")
		}()
	}
}

// abort rolls the transaction back and ends it. Called under txn.run.
func (txn *embeddedTxn) abort(cause string) {
	if !txn.inProgress() {
		return
	}

	txn.cause = cause
	txn.closeCursors()
	txn.sql.Rollback()
	txn.end(embeddedTxnAborted)
}

// commit commits the transaction and ends it. Called under txn.run.
func (txn *embeddedTxn) commit() error {
	// Open cursors would keep their statements running: SQLite refuses to commit then.
	txn.closeCursors()

	if err := txn.sql.Commit(); err != nil {
		txn.cause = "its commit failed"
		txn.end(embeddedTxnAborted)

		return err
	}

	txn.end(embeddedTxnCommitted)

	return nil
}

func (txn *embeddedTxn) end(state embeddedTxnState) {
	txn.releaseGates()
	txn.state.Store(int32(state))
	txn.cancel()
}

// releaseGates gives back the write gates the transaction holds. Called under txn.run.
func (txn *embeddedTxn) releaseGates() {
	for db, release := range txn.gates {
		release()
		delete(txn.gates, db)
	}
}

// closeCursors closes the cursors the transaction opened (MongoDB kills them when the transaction ends).
func (txn *embeddedTxn) closeCursors() {
	for _, id := range txn.cursors {
		if cur := txn.h.cursors.Get(id); cur != nil {
			txn.h.cursors.CloseAndRemove(cur)
		}
	}

	txn.cursors = nil
}

type embeddedTxnKey struct{}

// embeddedInTransaction runs a command of a transaction.
func embeddedInTransaction(ctx context.Context, call *embeddedCall, next embeddedNext, s *embeddedSession, doc *wirebson.Document) (*wire.OpMsg, error) { //nolint:lll // for readability
	number, _ := doc.Get("txnNumber").(int64)
	start, _ := doc.Get("startTransaction").(bool)

	if autocommit, _ := doc.Get("autocommit").(bool); autocommit {
		return embeddedErrorReply(embeddedErrorf(9, "autocommit must be false"), nil) // FailedToParse
	}

	s.mu.Lock()
	txn, err := s.transaction(call.h, number, start)
	s.mu.Unlock()

	if err != nil {
		return embeddedErrorReply(err, embeddedLabelsFor(embeddedInfoOf(err), true, false))
	}

	txn.run.Lock()
	defer txn.run.Unlock()

	txn.conn.Store(&call.conn)
	txn.orphaned.Store(0)

	switch embeddedTxnState(txn.state.Load()) {
	case embeddedTxnAborted:
		err = embeddedErrorf(
			embeddedCodeNoSuchTransaction,
			"Transaction with { txnNumber: %d } has been aborted: %s", number, txn.cause,
		)

		return embeddedErrorReply(err, []string{embeddedLabelTransient})

	case embeddedTxnCommitted:
		if call.command != "commitTransaction" { // a commit sent again answers as the first (below)
			err = embeddedErrorf(
				embeddedCodeTransactionCommitted,
				"Transaction with { txnNumber: %d } has been committed.", number,
			)

			return embeddedErrorReply(err, nil)
		}
	}

	if !embeddedAllowedInTransaction(call.command) {
		txn.abort("a command it cannot run was sent in it")

		err = embeddedErrorf(
			embeddedCodeOperationNotSupportedInTransaction,
			"Cannot run '%s' in a multi-document transaction.", call.command,
		)

		return embeddedErrorReply(err, nil)
	}

	// FerretDB's commands know none of the transaction's fields: they run without them.
	for _, f := range []string{"lsid", "txnNumber", "autocommit", "startTransaction", "readConcern"} {
		doc.Remove(f)
	}

	if call.msg, err = embeddedWithSection0(call.msg, doc); err != nil {
		return nil, lazyerrors.Error(err)
	}

	if embeddedIsWrite(call.command) && txn.inProgress() {
		if err = txn.takeGate(ctx, embeddedCommandDB(call, doc), embeddedMaxTime(doc)); err != nil {
			txn.abort("it waited too long to write")
			return embeddedErrorReply(err, []string{embeddedLabelTransient})
		}
	}

	reply, err := next(fsql.WithTxn(context.WithValue(ctx, embeddedTxnKey{}, txn), txn.sql))
	if !call.injected {
		txn.ran.Add(1)
	}

	commitOrAbort := embeddedIsCommitOrAbort(call)

	if err != nil {
		if fsql.IsBusy(err) {
			err = embeddedErrorf(
				embeddedCodeWriteConflict,
				"Write conflict during plan execution and yielding is disabled. :: Please retry your operation or "+
					"multi-document transaction.",
			)
		}

		// As on MongoDB, a command that fails ends its transaction; a fail point's error does not (nothing ran).
		if !commitOrAbort && !call.injected {
			txn.abort("a command of it failed")
		}

		return embeddedErrorReply(err, embeddedLabelsFor(embeddedInfoOf(err), true, commitOrAbort))
	}

	replyDoc, info := embeddedReadReply(reply)

	if (!info.ok || info.writeErrors) && !commitOrAbort && !call.injected {
		txn.abort("a command of it failed")
	}

	// A write that changed nothing (a conditional update that matched no document) leaves the transaction holding no
	// SQLite write lock: it gives the gates back, so that a transaction that only read does not hold up the writers.
	// Should it write later, it takes them again (and conflicts if another writer committed since its snapshot).
	if txn.inProgress() && !txn.sql.Wrote() {
		txn.releaseGates()
	}

	if info.cursorID != 0 && txn.inProgress() {
		txn.cursors = append(txn.cursors, info.cursorID)
	}

	return embeddedLabel(reply, replyDoc, info, embeddedLabelsFor(info, true, commitOrAbort))
}

func embeddedIsCommitOrAbort(call *embeddedCall) bool {
	return call.command == "commitTransaction" || call.command == "abortTransaction"
}

// embeddedInfoOf is what the labels are decided on for an error not yet answered.
func embeddedInfoOf(err error) embeddedReplyInfo {
	c, _ := embeddedErrorDocument(err).Get("code").(int32)

	return embeddedReplyInfo{code: c}
}

// embeddedAllowedInTransaction tells whether MongoDB runs a command inside a transaction.
func embeddedAllowedInTransaction(command string) bool {
	switch command {
	case "find", "getMore", "killCursors", "insert", "update", "delete", "findAndModify", "findandmodify",
		"aggregate", "distinct", "create", "createIndexes", "commitTransaction", "abortTransaction", "bulkWrite":
		return true
	default:
		return false
	}
}

// embeddedMaxTime is a command's maxTimeMS (0: none).
func embeddedMaxTime(doc *wirebson.Document) time.Duration {
	var ms int64

	switch v := doc.Get("maxTimeMS").(type) {
	case int32:
		ms = int64(v)
	case int64:
		ms = v
	case float64:
		ms = int64(v)
	}

	return time.Duration(max(ms, 0)) * time.Millisecond
}

// takeGate takes the write gate of database db for the transaction, unless it holds it (embeddedGateExclusive): it
// waits its turn at most until the transaction's time limit, the command's maxTime (when not 0), and
// maxTransactionLockRequestTimeoutMillis (when set), whichever comes first.
func (txn *embeddedTxn) takeGate(ctx context.Context, db string, maxTime time.Duration) error {
	if _, held := txn.gates[db]; held {
		return nil
	}

	now := time.Now()
	deadline := txn.started.Add(time.Duration(embeddedTxnLifetime.Load()))

	if maxTime > 0 && now.Add(maxTime).Before(deadline) {
		deadline = now.Add(maxTime)
	}

	if wait := time.Duration(embeddedTxnLockWait.Load()); wait >= 0 && now.Add(wait).Before(deadline) {
		deadline = now.Add(wait)
	}

	release, err := embeddedGateExclusive(ctx, db, deadline)
	if err != nil {
		return err
	}

	txn.gates[db] = release

	return nil
}

// embeddedCommitTransaction commits the transaction its context carries (embeddedInTransaction put it there).
func embeddedCommitTransaction(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	txn, _ := ctx.Value(embeddedTxnKey{}).(*embeddedTxn)
	if txn == nil {
		return nil, embeddedErrorf(embeddedCodeNoSuchTransaction, "no transaction started")
	}

	if txn.inProgress() {
		if err := txn.commit(); err != nil {
			if fsql.IsBusy(err) {
				return nil, embeddedErrorf(embeddedCodeWriteConflict, "the transaction's commit conflicted: %s", err)
			}

			return nil, lazyerrors.Error(err)
		}
	}

	return embeddedWriteConcernReply(call)
}

// embeddedWriteConcernReply answers a commit: ok, with MongoDB's writeConcernError when its write concern asks for
// more members than the replica set of one has (w: 2 and more).
func embeddedWriteConcernReply(call *embeddedCall) (*wire.OpMsg, error) {
	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	res := wirebson.MustDocument("ok", float64(1))

	if wc, ok := doc.Get("writeConcern").(wirebson.AnyDocument); ok {
		if wcDoc, err := wc.Decode(); err == nil {
			if w, ok := embeddedNumber(wcDoc.Get("w")); ok && w > 1 {
				must.NoError(res.Add("writeConcernError", wirebson.MustDocument(
					"code", int32(100),
					"codeName", "UnsatisfiableWriteConcern",
					"errmsg", "Not enough data-bearing nodes",
				)))
			}
		}
	}

	return wire.NewOpMsg(res)
}

// embeddedAbortTransaction rolls the transaction its context carries back.
func embeddedAbortTransaction(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	txn, _ := ctx.Value(embeddedTxnKey{}).(*embeddedTxn)
	if txn == nil {
		return nil, embeddedErrorf(embeddedCodeNoSuchTransaction, "no transaction started")
	}

	txn.abort("abortTransaction")

	return embeddedOK(ctx, call)
}

// embeddedRetryableWrite runs a retryable write once per session and txnNumber: sent again, it gets the first answer.
func embeddedRetryableWrite(ctx context.Context, call *embeddedCall, next embeddedNext, s *embeddedSession, doc *wirebson.Document) (*wire.OpMsg, error) { //nolint:lll // for readability
	number, _ := doc.Get("txnNumber").(int64)

	var r *embeddedRetry

	for r == nil {
		s.mu.Lock()

		switch {
		case number < s.txnNumber:
			s.mu.Unlock()

			err := embeddedErrorf(
				embeddedCodeTransactionTooOld,
				"Retryable write with txnNumber %d is prohibited on session %s because a newer retryable write "+
					"with txnNumber %d has already started on this session.",
				number, s.id, s.txnNumber,
			)

			return embeddedErrorReply(err, nil)

		case number == s.txnNumber && s.txn != nil:
			s.mu.Unlock()

			err := embeddedErrorf(
				embeddedCodeConflictingOperationInProgress,
				"Cannot run a retryable write with txnNumber %d on session %s: a transaction has it",
				number, s.id,
			)

			return embeddedErrorReply(err, nil)

		case number == s.txnNumber && s.retry != nil:
			first := s.retry
			s.mu.Unlock()

			select {
			case <-first.done:
			case <-ctx.Done():
				return nil, lazyerrors.Error(ctx.Err())
			}

			if first.reply != nil {
				return first.reply, nil
			}

			// The first run failed before it wrote: this one runs, unless another retry took over meanwhile.
			s.mu.Lock()
			if s.retry == first {
				r = &embeddedRetry{done: make(chan struct{})}
				s.retry = r
			}
			s.mu.Unlock()

		default:
			s.endPrevious()
			r = &embeddedRetry{done: make(chan struct{})}
			s.txnNumber, s.txn, s.retry = number, nil, r
			s.mu.Unlock()
		}
	}

	defer close(r.done)

	release, err := embeddedGateShared(ctx, embeddedCommandDB(call, doc))
	if err != nil {
		return nil, err
	}

	reply, err := next(fsql.WithoutTxn(ctx))

	release()

	if err != nil {
		return embeddedErrorReply(err, embeddedLabelsFor(embeddedInfoOf(err), false, true))
	}

	replyDoc, info := embeddedReadReply(reply)

	if info.ok {
		r.reply = embeddedWithoutWriteConcernError(reply, replyDoc, info)
	}

	return embeddedLabel(reply, replyDoc, info, embeddedLabelsFor(info, false, true))
}

// embeddedWithoutWriteConcernError is an answer as a retry gets it: the write happened, and a write concern error of
// the first answer (a fail point's) is not one of the retry.
func embeddedWithoutWriteConcernError(reply *wire.OpMsg, doc *wirebson.Document, info embeddedReplyInfo) *wire.OpMsg {
	if info.wcCode == 0 || doc == nil {
		return reply
	}

	clean := wirebson.MakeDocument(doc.Len())

	for _, name := range doc.FieldNames() {
		if name != "writeConcernError" && name != "errorLabels" {
			must.NoError(clean.Add(name, doc.Get(name)))
		}
	}

	res, err := wire.NewOpMsg(clean)
	if err != nil {
		return reply
	}

	return res
}

// embeddedEndSessions ends the sessions it names (endSessions, killSessions): their transactions in progress are
// aborted.
func embeddedEndSessions(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if list, ok := doc.Get(call.command).(wirebson.AnyArray); ok {
		arr, err := list.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		for i := range arr.Len() {
			lsid, ok := arr.Get(i).(wirebson.AnyDocument)
			if !ok {
				continue
			}

			d, err := lsid.Decode()
			if err != nil {
				continue
			}

			if id, ok := d.Get("id").(wirebson.Binary); ok {
				embeddedSessions.mu.Lock()
				s := embeddedSessions.m[hex.EncodeToString(id.B)]
				embeddedSessions.mu.Unlock()

				if s != nil {
					embeddedSessions.end(s)
				}
			}
		}
	}

	return embeddedOK(ctx, call)
}

// embeddedKillAllSessions ends every session.
func embeddedKillAllSessions(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	for _, s := range embeddedSessions.all() {
		embeddedSessions.end(s)
	}

	return embeddedOK(ctx, call)
}

// embeddedSetParameter sets the replica set's parameters: transactionLifetimeLimitSeconds and
// maxTransactionLockRequestTimeoutMillis. It answers the previous value as `was`, as MongoDB does.
func embeddedSetParameter(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	res := must.NotFail(types.NewDocument())

	for _, name := range doc.FieldNames() {
		var target *atomic.Int64
		var unit time.Duration

		switch name {
		case "setParameter", "$db", "lsid", "$clusterTime", "$readPreference", "comment":
			continue
		case "transactionLifetimeLimitSeconds":
			target, unit = &embeddedTxnLifetime, time.Second
		case "maxTransactionLockRequestTimeoutMillis":
			target, unit = &embeddedTxnLockWait, time.Millisecond
		default:
			return nil, embeddedErrorf(72, "attempted to set unrecognized parameter [%s], use help:true to see options ", name) //nolint:lll // InvalidOptions
		}

		var n int64

		switch v := doc.Get(name).(type) {
		case int32:
			n = int64(v)
		case int64:
			n = v
		case float64:
			n = int64(v)
		default:
			return nil, embeddedErrorf(14, "%s must be a number", name) // TypeMismatch
		}

		if n < 1 && name == "transactionLifetimeLimitSeconds" {
			return nil, embeddedErrorf(2, "%s must be at least 1", name) // BadValue
		}

		res.Set("was", int64(time.Duration(target.Swap(int64(time.Duration(n)*unit)))/unit))
	}

	res.Set("ok", float64(1))

	return documentOpMsg(res)
}

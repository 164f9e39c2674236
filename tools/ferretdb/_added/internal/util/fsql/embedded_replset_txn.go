// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// Txn is the SQLite side of one client transaction (replset.patch): on each database the transaction uses, one SQLite
// transaction on a connection of its own, begun at the transaction's first statement there (SQLite takes the
// transaction's snapshot at its first read), and ended with the others by Commit or Rollback. While a context carries
// a Txn (WithTxn), the DB methods run their statements in it; a DB.InTransaction inside it is a savepoint.
type Txn struct {
	// ctx lives as long as the transaction: database/sql rolls a transaction back when the context of its BeginTx is
	// canceled, so it must not be a request's.
	ctx context.Context //nolint:containedctx // see above

	mu    sync.Mutex
	dbs   []txnDB // in the order of first use
	onEnd []func(committed bool)
	ended bool
	wrote bool // a statement that writes ran in it
}

type txnDB struct {
	db *DB
	tx *sql.Tx
}

// errTxnEnded is returned for a statement sent to a transaction that ended meanwhile (aborted by its time limit).
var errTxnEnded = errors.New("the transaction has ended")

type txnKey struct{}

// NewTxn returns a transaction that has begun nothing yet. ctx bounds its life (see Txn.ctx).
func NewTxn(ctx context.Context) *Txn {
	return &Txn{ctx: ctx}
}

// WithTxn returns a context whose statements run in t.
func WithTxn(ctx context.Context, t *Txn) context.Context {
	return context.WithValue(ctx, txnKey{}, t)
}

// WithoutTxn returns a context whose statements run outside any transaction.
func WithoutTxn(ctx context.Context) context.Context {
	if TxnFrom(ctx) == nil {
		return ctx
	}

	return context.WithValue(ctx, txnKey{}, (*Txn)(nil))
}

// TxnFrom returns the transaction ctx carries, or nil.
func TxnFrom(ctx context.Context) *Txn {
	t, _ := ctx.Value(txnKey{}).(*Txn)
	return t
}

// OnEnd calls f when the transaction ends, with whether it committed. Called in the order registered.
func (t *Txn) OnEnd(f func(committed bool)) {
	t.mu.Lock()
	defer t.mu.Unlock()

	t.onEnd = append(t.onEnd, f)
}

// Wrote tells whether a statement that writes (an exec, or a savepoint's work) has run in the transaction: until one
// has, it holds no SQLite write lock.
func (t *Txn) Wrote() bool {
	t.mu.Lock()
	defer t.mu.Unlock()

	return t.wrote
}

func (t *Txn) markWrote() {
	t.mu.Lock()
	t.wrote = true
	t.mu.Unlock()
}

// Began tells whether the transaction has begun a SQLite transaction on db.
func (t *Txn) Began(db *DB) bool {
	t.mu.Lock()
	defer t.mu.Unlock()

	for _, d := range t.dbs {
		if d.db == db {
			return true
		}
	}

	return false
}

// sqlTx returns the transaction's SQLite transaction on db, beginning it (and so taking its snapshot) on first use.
func (t *Txn) sqlTx(db *DB) (*sql.Tx, error) {
	t.mu.Lock()
	defer t.mu.Unlock()

	if t.ended {
		return nil, errTxnEnded
	}

	for _, d := range t.dbs {
		if d.db == db {
			return d.tx, nil
		}
	}

	tx, err := db.sqlDB.BeginTx(t.ctx, nil)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	t.dbs = append(t.dbs, txnDB{db: db, tx: tx})

	return tx, nil
}

// Commit commits the SQLite transaction of each database, in the order of first use (atomic per database: one
// SQLite file each), then calls the OnEnd functions.
func (t *Txn) Commit() error {
	return t.end(true)
}

// Rollback rolls every SQLite transaction back, then calls the OnEnd functions. Ending an ended Txn does nothing.
func (t *Txn) Rollback() {
	_ = t.end(false)
}

func (t *Txn) end(commit bool) error {
	t.mu.Lock()

	if t.ended {
		t.mu.Unlock()
		return nil
	}

	t.ended = true
	dbs, onEnd := t.dbs, t.onEnd
	t.dbs, t.onEnd = nil, nil
	t.mu.Unlock()

	var err error

	for i, d := range dbs {
		if !commit {
			_ = d.tx.Rollback()
			continue
		}

		if err = d.tx.Commit(); err != nil {
			// What follows never commits: the transaction is atomic per database, and this one failed first.
			for _, rest := range dbs[i+1:] {
				_ = rest.tx.Rollback()
			}

			commit = false
			err = lazyerrors.Error(err)

			break
		}
	}

	for _, f := range onEnd {
		f(commit)
	}

	return err
}

// query, queryRow and exec run a statement of db in the transaction.
func (t *Txn) query(ctx context.Context, db *DB, query string, args ...any) (*Rows, error) {
	tx, err := t.sqlTx(db)
	if err != nil {
		return nil, err
	}

	rows, err := tx.QueryContext(ctx, query, args...)

	return wrapRows(rows), err
}

func (t *Txn) queryRow(ctx context.Context, db *DB, query string, args ...any) *sql.Row {
	tx, err := t.sqlTx(db)
	if err != nil {
		// A *sql.Row carries an error only from database/sql: a canceled context gives one, without a statement.
		canceled, cancel := context.WithCancel(ctx)
		cancel()

		return db.sqlDB.QueryRowContext(canceled, query, args...)
	}

	return tx.QueryRowContext(ctx, query, args...)
}

func (t *Txn) exec(ctx context.Context, db *DB, query string, args ...any) (sql.Result, error) {
	tx, err := t.sqlTx(db)
	if err != nil {
		return nil, err
	}

	t.markWrote()

	return tx.ExecContext(ctx, query, args...)
}

// inSavepoint runs f as DB.InTransaction does, inside the transaction: in a savepoint, released when f succeeds and
// rolled back to when it fails, so that a failed statement leaves nothing behind (as the SQLite transaction it
// stands for would have).
func (t *Txn) inSavepoint(ctx context.Context, db *DB, f func(*Tx) error) error {
	tx, err := t.sqlTx(db)
	if err != nil {
		return err
	}

	if _, err = tx.ExecContext(ctx, "SAVEPOINT ferretdb_embedded"); err != nil {
		return lazyerrors.Error(err)
	}

	t.markWrote()

	if err = f(wrapTx(tx, db.l)); err != nil {
		_, _ = tx.ExecContext(ctx, "ROLLBACK TO ferretdb_embedded")
		_, _ = tx.ExecContext(ctx, "RELEASE ferretdb_embedded")

		return err
	}

	if _, err = tx.ExecContext(ctx, "RELEASE ferretdb_embedded"); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}

// IsBusy tells whether err is SQLite's refusal of a write (SQLITE_BUSY and its extended codes, such as
// SQLITE_BUSY_SNAPSHOT: the transaction read a snapshot that another connection has written past since). In a client
// transaction it is MongoDB's WriteConflict.
func IsBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package fsql

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedStmtCacheSize bounds the statements kept per database: the pushed-down reads have few distinct texts
// (their values are arguments), but an $in of n values has n placeholders, so the texts are not a fixed set.
const embeddedStmtCacheSize = 512

// embeddedStmtCache keeps prepared statements by their SQL text, so that a read does not parse and plan its SQL
// again each time (SQLite's parser and planner were 17 % of FerretDB's CPU for a project by id). SQLite prepares
// a statement again by itself when the schema it was prepared for changes.
type embeddedStmtCache struct {
	mu     sync.RWMutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// stmt returns the prepared statement for query, or nil when the cache is full or closed.
func (c *embeddedStmtCache) stmt(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.RLock()
	s, full := c.stmts[query], c.closed || len(c.stmts) >= embeddedStmtCacheSize
	c.mu.RUnlock()

	if s != nil || full {
		return s, nil
	}

	// Prepared outside the lock: it waits for a connection.
	s, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	if prev := c.stmts[query]; prev != nil || c.closed || len(c.stmts) >= embeddedStmtCacheSize {
		_ = s.Close()
		return prev, nil
	}

	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}

	c.stmts[query] = s

	return s, nil
}

func (c *embeddedStmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()

	for _, s := range c.stmts {
		_ = s.Close()
	}

	c.stmts, c.closed = nil, true
}

// QueryPrepared runs query, in tx when it is not nil, through a statement prepared once per text and connection.
// It logs as QueryContext does, but builds the log record only when debug logging is on.
//
// Shared: the pushdown's reads and the read path call it. Preparing once is one of the read path's cuts: with
// FERRETDB_EMBEDDED_READPATH=off every run prepares its statement again, as FerretDB does.
func (db *DB) QueryPrepared(ctx context.Context, tx *Tx, query string, args ...any) (*Rows, error) {
	if db.l.Enabled(ctx, slog.LevelDebug) {
		db.l.DebugContext(ctx, fmt.Sprintf(">>> %s", query), slog.Any("args", args))
	}

	if t := TxnFrom(ctx); t != nil && tx == nil {
		// In the client's transaction (replset.patch): its connection, without the cache's statements.
		return t.query(ctx, db, query, args...)
	}

	var s *sql.Stmt
	var rows *sql.Rows
	var err error

	if !embedded.ReadpathOff {
		if s, err = db.embeddedStmts.stmt(ctx, db.sqlDB, query); err != nil {
			return nil, err
		}
	}

	switch {
	case s == nil && tx == nil:
		rows, err = db.sqlDB.QueryContext(ctx, query, args...)
	case s == nil:
		rows, err = tx.sqlTx.QueryContext(ctx, query, args...)
	case tx == nil:
		rows, err = s.QueryContext(ctx, args...)
	default:
		// Closed with the transaction; the statement stays prepared on the connection.
		rows, err = tx.sqlTx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}

	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return wrapRows(rows), nil
}

// Command ferretdb-embedded runs FerretDB 1.24 (SQLite backend) as a child of the Node service.
//
// Usage: ferretdb-embedded <absolute data dir>
//
// It listens on 127.0.0.1 with an ephemeral port, prints the MongoDB URI as the first line of stdout,
// and stops on SIGINT/SIGTERM or when stdin closes, so a parent that dies never leaves it running.
//
// It also keeps an extra SQLite index in every collection of every database (keepIDIndexes below), so FerretDB's
// reads, updates and deletes by _id stop scanning whole tables. (One file on purpose: the Node side rebuilds the
// binary when main.go, go.mod or go.sum change.)
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ferretdb-embedded <data dir>")
		os.Exit(2)
	}
	dir, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Before FerretDB opens any database, so the hook sees every connection.
	newConnections := watchConnections()
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Logger:   logger,
		Handler:  "sqlite",
		// WAL is FerretDB's default; synchronous=NORMAL (safe with WAL: a crash of this process or of the service
		// loses nothing, only a power cut may lose the last commits) spares an fsync on every write.
		SQLiteURL: "file:" + filepath.ToSlash(dir) + "/?_pragma=synchronous(normal)",
	})
	if err != nil {
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The parent keeps our stdin open; EOF means it is gone.
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()

	go keepIDIndexes(ctx, dir, logger, newConnections)

	fmt.Println(f.MongoDBURI())
	if err := f.Run(ctx); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
	os.Exit(1)
}

// ---- The _id index FerretDB 1.24's SQLite backend lacks.
//
// FerretDB pushes a filter on `_id` alone down to SQLite as `_ferretdb_sjson->'$._id' = ?` (also for updates and
// deletes by _id), but the unique index it creates for `_id` is on `_ferretdb_sjson->"_id"`. SQLite uses an
// expression index only for the identical expression, so every point read or write by _id scanned the table.
// We add, in every collection table, an index on exactly FerretDB's expression. FerretDB does not know about it
// (its metadata lists only its own indexes), which is harmless: dropping a collection drops the table and the index.
//
// FerretDB gives no hook when it creates a collection, so a watcher sweeps the data directory: at start, whenever
// FerretDB opens a new SQLite connection (a new database file, via modernc's connection hook) and every
// sweepInterval. A file is re-read only when it or its WAL changed since its last complete sweep. Until the
// sweep reaches a new collection its _id reads scan, as before: slower, never wrong.

const (
	// idIndexSuffix names our index "<table>__ferretdb_embedded_id_path"; FerretDB names its own "<table>_<index name>".
	idIndexSuffix = "__ferretdb_embedded_id_path"
	// idExpression must stay byte-for-byte FerretDB's metadata.IDColumn, or SQLite will not use the index.
	idExpression  = `_ferretdb_sjson->'$._id'`
	sweepInterval = 500 * time.Millisecond
	// indexerMarker tags the watcher's own connections so the connection hook ignores them.
	indexerMarker = "ferretdb_embedded_indexer"
)

// watchConnections returns a channel that receives (without blocking FerretDB) when FerretDB opens an SQLite
// connection: the moment a new database file appears.
func watchConnections() <-chan struct{} {
	nudge := make(chan struct{}, 1)
	sqlite.RegisterConnectionHook(func(_ sqlite.ExecQuerierContext, dsn string) error {
		if !strings.Contains(dsn, indexerMarker) {
			select {
			case nudge <- struct{}{}:
			default:
			}
		}
		return nil
	})
	return nudge
}

// keepIDIndexes sweeps dir until ctx ends: at once, on every nudge and every sweepInterval.
func keepIDIndexes(ctx context.Context, dir string, logger *slog.Logger, nudge <-chan struct{}) {
	w := &idIndexWatcher{dir: dir, logger: logger, seen: map[string]fileState{}}
	ticker := time.NewTicker(sweepInterval)
	defer ticker.Stop()
	for {
		w.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-nudge:
			// FerretDB opened a connection, maybe to a new database: its collections follow within milliseconds.
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// fileState is what a database file and its WAL looked like when it was last swept completely.
type fileState struct {
	size, walSize         int64
	modified, walModified time.Time
}

type idIndexWatcher struct {
	dir    string
	logger *slog.Logger
	seen   map[string]fileState
}

func (w *idIndexWatcher) sweep(ctx context.Context) {
	files, err := filepath.Glob(filepath.Join(w.dir, "*.sqlite"))
	if err != nil {
		return
	}
	present := map[string]bool{}
	for _, file := range files {
		present[file] = true
		state, ok := stateOf(file)
		if !ok || w.seen[file] == state {
			continue
		}
		if err := indexFile(ctx, file); err != nil {
			// Usually a database being created or dropped right now; the next sweep retries.
			w.logger.Debug("ferretdb-embedded: _id index sweep", slog.String("file", file), slog.String("error", err.Error()))
			delete(w.seen, file)
			continue
		}
		w.seen[file] = state
	}
	for file := range w.seen {
		if !present[file] {
			delete(w.seen, file)
		}
	}
}

func stateOf(file string) (fileState, bool) {
	info, err := os.Stat(file)
	if err != nil {
		return fileState{}, false
	}
	state := fileState{size: info.Size(), modified: info.ModTime()}
	if wal, err := os.Stat(file + "-wal"); err == nil {
		state.walSize, state.walModified = wal.Size(), wal.ModTime()
	}
	return state, true
}

// indexFile adds the index to every collection table of one database file that lacks it.
func indexFile(ctx context.Context, file string) error {
	// mode=rw: never create a file (a database dropped meanwhile must stay dropped).
	dsn := "file:" + filepath.ToSlash(file) + "?mode=rw&" + indexerMarker + "=1&" +
		url.Values{"_pragma": {"busy_timeout(10000)"}}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	rows, err := db.QueryContext(ctx, `SELECT table_name FROM _ferretdb_collections WHERE table_name NOT IN
		(SELECT tbl_name FROM sqlite_schema WHERE type = 'index' AND name = tbl_name || ?)`, idIndexSuffix)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var table string
		if err := rows.Scan(&table); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, table)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, table := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, table+idIndexSuffix, table, idExpression)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Command ferretdb-embedded runs FerretDB 1.24 (SQLite backend) as a child of the Node service.
//
// Usage:
//
//	ferretdb-embedded <absolute data dir>
//	ferretdb-embedded explain <data dir> <SQL log> [database]
//	ferretdb-embedded snapshot <data dir> <database> <file>
//
// It listens on the Unix domain socket FERRETDB_EMBEDDED_SOCKET names (the service gives one), else on 127.0.0.1 with
// an ephemeral port, prints the MongoDB URI as the first line of stdout, and stops on SIGINT/SIGTERM or when stdin
// closes, so a parent that dies never leaves it running.
//
// It is built with the project's patches of FerretDB, one concern each: its changes of FerretDB's own files in
// patches/<concern>.patch (each written against FerretDB's pristine files, so they apply in any order; every change
// names its concern in a comment, "(<concern>.patch)") and its own files under _added, named after it
// (embedded_<concern>*.go). The Node side applies them at build time (src/db/ferretdb.ts); `npm run
// ferretdb:workspace` gives a developer the patched module as a git repository and writes the patches back.
//
//	concern    switch (read once, in _added/internal/util/embedded/switches.go)        buildInfo marker
//	pushdown   FERRETDB_EMBEDDED_PUSHDOWN=off: nothing pushed down to SQLite          -
//	readpath   FERRETDB_EMBEDDED_READPATH=off|check: FerretDB's own reading            -
//	           FERRETDB_EMBEDDED_JOIN_CACHE=off: no looked-up documents kept            -
//	pushdown   FERRETDB_EMBEDDED_PUSHDOWN_DATES=off: dates left to FerretDB            -
//	pushdown   FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS=off: $ne, $nin left to FerretDB    -
//	atomic     FERRETDB_EMBEDDED_ATOMIC=off: FerretDB's read-then-write writes         embeddedAtomicWrites: true
//	lookup     FERRETDB_EMBEDDED_LOOKUP=off: no $lookup stage                          embeddedLookup: true
//	crud       FERRETDB_EMBEDDED_CRUD=off: FerretDB's own CRUD answers                 embeddedCrud: true
//	replset    FERRETDB_EMBEDDED_REPLSET=off: a standalone server, no transactions     (hello: setName rs0)
//	erase      FERRETDB_EMBEDDED_ERASE=off: deleted text kept in free pages and the WAL -
//	failpoint  FERRETDB_EMBEDDED_TEST_COMMANDS=on: configureFailPoint (off unless set) -
//
// pushdown: filters, sorts, skips, limits and counts reach SQLite and its indexes. readpath: results the pushdown
// proved exact go from SQLite's JSON straight to BSON, statements are prepared once, command tags parsed once, NaNs
// checked in requests only, each command converted once, a join's looked-up documents kept as BSON until a write.
// atomic: updates, findAndModify and deletes are atomic per document, as on MongoDB. lookup: aggregate has the
// $lookup stage in its equality form, with a pipeline after the match. replset: hello answers as the primary of a
// replica set of one; sessions, multi-document transactions and retryable writes are served as MongoDB serves them.
// failpoint: MongoDB's failCommand fail point, for tests (hooks only: no change of FerretDB's files). crud: the CRUD
// commands take the options and inputs MongoDB's CRUD specification tests use (docs/database.md lists them), and
// refuse the rest with NotImplemented; the server claims MongoDB 8.0 (buildInfo 8.0.0, hello's maxWireVersion 25,
// where FerretDB claims 7.0 and 21) and has 8.0's client bulkWrite, update sort and distinct hint. erase: SQLite
// overwrites deleted content with zeros (secure_delete), and compact ends by checkpointing the write-ahead log into
// the database file and truncating it, so a deleted document's text is in neither file.
// What several concerns use lives once, in a file named for what it shares: the switches
// (util/embedded/switches.go), buildInfo's markers (handler/embedded_markers.go, whose hook in msg_buildinfo.go is
// shared.patch), the command hooks (handler/embedded_commands.go, whose hooks in clientconn/conn.go are shared.patch),
// the lock table of the atomic writes and the transactions' write gates (handler/embedded_locks.go), prepared
// statements (util/fsql/embedded_stmts.go, its field in fsql.DB is shared.patch), a read transaction
// (util/fsql/embedded_readtx.go) and the walk over stored JSON (handler/sjson/embedded_walk.go). Patches apply in
// any order; the Node side applies them sorted by name. The service never sets a switch (startFerretDb drops them from
// its environment); they are for the tests and the benches, which compare each concern with FerretDB's own behaviour.
//
// FERRETDB_EMBEDDED_SOCKET=<path> listens on that Unix domain socket instead of 127.0.0.1 (startFerretDb always gives
// one: see socketFor in src/db/ferretdb.ts); the URI printed names it. With FERRETDB_EMBEDDED_SOCKET_FOLDER=temporary
// the socket's folder is removed when the program stops.
//
// FERRETDB_EMBEDDED_PPROF=<host:port> (e.g. 127.0.0.1:6060) serves Go's profiles (net/http/pprof) there, for
// `go tool pprof http://<host:port>/debug/pprof/profile?seconds=20`; off unless set.
//
// FERRETDB_EMBEDDED_SQL_LOG=<file> appends every SQL statement FerretDB runs to that file, one JSON object a line
// ({"db": database, "sql": statement}); `explain` prints SQLite's EXPLAIN QUERY PLAN of each distinct statement
// of such a log, for the tests.
//
// `snapshot` writes a consistent copy of one database's SQLite file (SQLite's VACUUM INTO, in one read transaction:
// every write committed before it began, none after) to <file>, which must not exist, while a FerretDB on the same
// data dir keeps serving (WAL lets readers and the writer run side by side). It prints the copy's size in bytes.
// npm run db:backup starts a second FerretDB on the copy and reads it from there. (One file on purpose: the Node side rebuilds the binary when any file of
// tools/ferretdb changes.)
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	_ "modernc.org/sqlite" // database/sql driver for `explain`
)

func main() {
	if (len(os.Args) == 4 || len(os.Args) == 5) && os.Args[1] == "explain" {
		only := ""
		if len(os.Args) == 5 {
			only = os.Args[4]
		}
		if err := explain(os.Args[2], os.Args[3], only, os.Stdout); err != nil {
			fail(err)
		}
		return
	}
	if len(os.Args) == 5 && os.Args[1] == "snapshot" {
		size, err := snapshot(os.Args[2], os.Args[3], os.Args[4])
		if err != nil {
			fail(err)
		}
		fmt.Println(size)
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ferretdb-embedded <data dir> | ferretdb-embedded explain <data dir> <SQL log> [database] | ferretdb-embedded snapshot <data dir> <database> <file>")
		os.Exit(2)
	}
	dir, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}

	if addr := os.Getenv("FERRETDB_EMBEDDED_PPROF"); addr != "" {
		servePprof(addr)
	}

	handler := &logHandler{next: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
	if path := os.Getenv("FERRETDB_EMBEDDED_SQL_LOG"); path != "" {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fail(err)
		}
		defer file.Close()
		handler.sqlLog = &lockedWriter{w: file}
	}
	// FERRETDB_EMBEDDED_SOCKET: listen on this Unix domain socket instead of a loopback port (the service does): only
	// this user can connect to it, and a command costs both sides less than over TCP. A socket a killed run left
	// behind is removed first; one that answers belongs to a FerretDB serving this folder still, which two must not.
	listener := ferretdb.ListenerConfig{TCP: "127.0.0.1:0"}
	if socket := os.Getenv("FERRETDB_EMBEDDED_SOCKET"); socket != "" {
		if conn, err := net.DialTimeout("unix", socket, time.Second); err == nil {
			_ = conn.Close()
			fail(fmt.Errorf("another FerretDB serves %s already (its socket %s answers): stop it first", dir, socket))
		}
		if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fail(err)
		}
		listener = ferretdb.ListenerConfig{Unix: socket}
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: listener,
		Logger:   slog.New(handler),
		Handler:  "sqlite",
		// WAL is FerretDB's default; synchronous=NORMAL (safe with WAL: a crash of this process or of the service
		// loses nothing, only a power cut may lose the last commits) spares an fsync on every write.
		SQLiteURL: "file:" + filepath.ToSlash(dir) + "/?_pragma=synchronous(normal)&_pragma=mmap_size(268435456)",
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

	if listener.Unix != "" {
		// Connecting takes write permission on the socket: its owner's only, whatever the umask.
		if err := os.Chmod(listener.Unix, 0o600); err != nil {
			fail(err)
		}
		// The socket's path as a host, escaped as MongoDB's drivers expect it.
		fmt.Println("mongodb://" + url.PathEscape(listener.Unix) + "/")
	} else {
		fmt.Println(f.MongoDBURI())
	}
	if err := f.Run(ctx); err != nil {
		fail(err)
	}
	// FERRETDB_EMBEDDED_SOCKET_FOLDER=temporary: the socket's folder was made for this run alone (socketFor), and
	// goes with it, also when the parent was killed and could not remove it (the socket itself is gone with the
	// listener; a folder holding anything else stays).
	if listener.Unix != "" && os.Getenv("FERRETDB_EMBEDDED_SOCKET_FOLDER") == "temporary" {
		_ = os.Remove(filepath.Dir(listener.Unix))
	}
}

// servePprof serves Go's profiles on addr, on a mux of its own (FerretDB's handlers never see it).
func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintln(os.Stderr, "ferretdb-embedded: pprof:", err)
		}
	}()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
	os.Exit(1)
}

// ---- The SQL log.
//
// FerretDB logs every statement it sends to SQLite at debug level (its fsql package: message ">>> <SQL>", through
// a logger named "sqlite", then after the database). logHandler passes warnings and errors on, and writes those
// statements to sqlLog when it is set; it enables debug records for those loggers only (FerretDB's other debug
// records format whole messages, which made a logging FerretDB several times slower).

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

type logHandler struct {
	next   slog.Handler
	sqlLog *lockedWriter
	names  []string // the logger's "name" attributes, outermost first
}

// db returns the database of an fsql logger ("sqlite", then the database), or "".
func (h *logHandler) db() string {
	if n := len(h.names); n >= 2 && h.names[n-2] == "sqlite" {
		return h.names[n-1]
	}
	return ""
}

type sqlLogEntry struct {
	DB  string `json:"db"`
	SQL string `json:"sql"`
}

func (h *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return (h.sqlLog != nil && level == slog.LevelDebug && h.db() != "") || h.next.Enabled(ctx, level)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if db := h.db(); h.sqlLog != nil && r.Level == slog.LevelDebug && db != "" {
		if statement, ok := strings.CutPrefix(r.Message, ">>> "); ok {
			b, _ := json.Marshal(sqlLogEntry{DB: db, SQL: statement})
			h.sqlLog.line(b)
		}
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(attrs)
	for _, a := range attrs {
		if a.Key == "name" {
			c.names = append(append([]string(nil), c.names...), a.Value.String())
		}
	}
	return &c
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}

// ---- snapshot: a consistent copy of one database's file.

func snapshot(dir, database, dest string) (int64, error) {
	path := filepath.Join(dir, database+".sqlite")
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("no database %q in %s", database, dir)
	}
	if _, err := os.Stat(dest); err == nil {
		return 0, fmt.Errorf("%s exists already", dest)
	}
	// Read-write (a read-only connection cannot open a WAL database whose -shm file is missing), but it writes
	// nothing; busy_timeout waits out a checkpoint holding the lock.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(60000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("VACUUM INTO ?", dest); err != nil {
		return 0, fmt.Errorf("VACUUM INTO: %w", err)
	}
	info, err := os.Stat(dest)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// ---- explain: the query plans of the statements of an SQL log.

type explained struct {
	DB    string   `json:"db"`
	SQL   string   `json:"sql"`
	Plan  []string `json:"plan,omitempty"`
	Error string   `json:"error,omitempty"` // e.g. the table was dropped since
}

// explain writes, for every distinct SELECT, UPDATE or DELETE of the log (on database only, if not empty), one JSON
// line with SQLite's query plan (statements with parameters are planned with them unbound, as SQLite plans them
// before binding).
func explain(dir, logPath, only string, out io.Writer) error {
	logFile, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()

	dbs := map[string]*sql.DB{}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	seen := map[sqlLogEntry]bool{}
	enc := json.NewEncoder(out)
	scanner := bufio.NewScanner(logFile)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e sqlLogEntry
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return err
		}
		verb := strings.ToUpper(strings.Fields(e.SQL + " x")[0])
		if seen[e] || (only != "" && e.DB != only) || (verb != "SELECT" && verb != "UPDATE" && verb != "DELETE") {
			continue
		}
		seen[e] = true
		db := dbs[e.DB]
		if db == nil {
			path := filepath.Join(dir, e.DB+".sqlite")
			if _, err := os.Stat(path); err != nil {
				continue // dropped since
			}
			if db, err = sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro"); err != nil {
				return err
			}
			dbs[e.DB] = db
		}
		res := explained{DB: e.DB, SQL: e.SQL}
		if res.Plan, err = queryPlan(db, e.SQL); err != nil {
			res.Error = err.Error()
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return scanner.Err()
}

func queryPlan(db *sql.DB, statement string) ([]string, error) {
	rows, err := db.Query("EXPLAIN QUERY PLAN "+statement, make([]any, placeholders(statement))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}

// placeholders counts the ? parameters of an SQL statement (outside quotes and comments); they are bound to NULL.
func placeholders(statement string) int {
	n := 0
	for i := 0; i < len(statement); i++ {
		switch c := statement[i]; {
		case c == '\'' || c == '"':
			if j := strings.IndexByte(statement[i+1:], c); j >= 0 {
				i += j + 1
			}
		case strings.HasPrefix(statement[i:], "/*"):
			if j := strings.Index(statement[i:], "*/"); j >= 0 {
				i += j + 1
			}
		case c == '?':
			n++
		}
	}
	return n
}

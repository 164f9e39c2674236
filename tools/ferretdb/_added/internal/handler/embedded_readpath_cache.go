// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// The matches a join looked up, kept between commands (the read path's cache, readpath.patch). A page of projects
// with their teachers reads the page's projects and then the same teachers page after page: in Go's profile of that
// page under load, the teachers' read and their conversion to BSON were 41 % of FerretDB's CPU. MongoDB keeps the
// documents it reads in its storage engine's cache, as BSON; this keeps the matches of each looked-up value as the
// reply's BSON, until anything may have changed what is stored.
//
// What is kept is exactly what the join's read gave (embeddedJoinBatch, embeddedJoinMatches): the documents of
// `from` equal to one value, in their natural order, with the lookup's $project applied. It is valid only while no
// write can have happened since it was read:
//
//   - every command that is not one of the reads below is a write: while one runs, nothing is kept or served, and
//     when one starts and when it ends everything kept is dropped (the generation moves on: a read that began before
//     keeps nothing). An aggregation is a read unless its command holds "$out" or "$merge" (a stage that writes; a
//     field of that name elsewhere only makes it count as a write), and so is an explain. A transaction's commit is
//     a command too;
//   - a read inside a transaction neither uses nor keeps anything (it may see its own writes, which others do not);
//   - a `from` that is capped is not kept (FerretDB's own cleanup deletes from it between commands);
//   - at most embeddedJoinCacheMaxBytes of documents are kept: beyond it, everything is dropped and kept anew.
//
// FERRETDB_EMBEDDED_JOIN_CACHE=off keeps nothing: every join reads `from`.

// embeddedJoinCacheOff is true when FERRETDB_EMBEDDED_JOIN_CACHE=off.
var embeddedJoinCacheOff = embedded.JoinCacheOff

// embeddedJoinCacheMaxBytes is the most bytes of documents kept (a teacher as the service reads it is about 50).
const embeddedJoinCacheMaxBytes = 16 << 20

// embeddedJoinCacheReads are the commands that change nothing stored (aggregate and explain: unless they hold $out
// or $merge).
var embeddedJoinCacheReads = map[string]bool{
	"aggregate": true, "buildInfo": true, "buildinfo": true, "collStats": true, "connectionStatus": true,
	"count": true, "dataSize": true, "dbStats": true, "distinct": true, "endSessions": true, "explain": true,
	"find": true, "getCmdLineOpts": true, "getLog": true, "getMore": true, "getParameter": true, "hello": true,
	"hostInfo": true, "isMaster": true, "ismaster": true, "killCursors": true, "listCollections": true,
	"listCommands": true, "listDatabases": true, "listIndexes": true, "ping": true, "refreshSessions": true,
	"saslContinue": true, "saslStart": true, "serverStatus": true, "startSession": true, "whatsmyuri": true,
}

// embeddedJoinCacheWrites are the aggregation stages that write, as their names sit in a command's BSON.
var embeddedJoinCacheWrites = [][]byte{[]byte("$out\x00"), []byte("$merge\x00")}

func init() {
	if !embeddedJoinCacheOff {
		// Outside the replica set's hook (10): a transaction's commit runs inside this one.
		embeddedRegisterHook(5, embeddedJoinCacheHook)
	}
}

// embeddedJoinCacheHook drops what is kept around every command that may write.
func embeddedJoinCacheHook(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	if embeddedJoinCacheIsRead(call) {
		return next(ctx)
	}

	embeddedJoinCache.writeStarts()
	defer embeddedJoinCache.writeEnds()

	return next(ctx)
}

// embeddedJoinCacheIsRead reports whether a command changes nothing stored.
func embeddedJoinCacheIsRead(call *embeddedCall) bool {
	if !embeddedJoinCacheReads[call.command] {
		return false
	}

	if call.command != "aggregate" && call.command != "explain" {
		return true
	}

	raw := call.msg.RawSection0()
	for _, stage := range embeddedJoinCacheWrites {
		if bytes.Contains(raw, stage) {
			return false
		}
	}

	return true
}

// embeddedJoinCacheKey names one looked-up value's matches.
type embeddedJoinCacheKey struct {
	from    string // the database and collection, "db.coll"
	field   string // the foreign field
	project string // the lookup's pipeline ($project) as BSON; "" without one
	key     embeddedJoinKey
}

// embeddedJoinCacheState is what is kept, and the writes that decide whether it is valid.
type embeddedJoinCacheState struct {
	mu         sync.Mutex
	generation uint64 // moves on when a write starts and when it ends
	writes     int    // writes running
	matches    map[embeddedJoinCacheKey][]wirebson.RawDocument
	bytes      int
}

var embeddedJoinCache = &embeddedJoinCacheState{matches: map[embeddedJoinCacheKey][]wirebson.RawDocument{}}

func (s *embeddedJoinCacheState) writeStarts() {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.writes++
	s.dropLocked()
}

func (s *embeddedJoinCacheState) writeEnds() {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.writes--
	s.dropLocked()
}

func (s *embeddedJoinCacheState) dropLocked() {
	s.generation++
	clear(s.matches)
	s.bytes = 0
}

// embeddedJoinCacheView is one join's use of the cache: the generation its reads began in.
type embeddedJoinCacheView struct {
	s          *embeddedJoinCacheState
	from       string
	field      string
	project    string
	generation uint64
}

// embeddedJoinCacheFor returns the cache as a join of `from` (in database dbName) may use it, taken before the join
// reads `from`; nil when it may not (switched off, in a transaction, a capped `from`).
func embeddedJoinCacheFor(ctx context.Context, dbName string, l *embeddedLookup) *embeddedJoinCacheView {
	if embeddedJoinCacheOff || l.localField == nil || ctx.Value(embeddedTxnKey{}) != nil {
		return nil
	}

	// FerretDB's own cleanup deletes from a capped collection between commands: not kept.
	list, err := l.db.ListCollections(ctx, &backends.ListCollectionsParams{Name: l.from})
	if err != nil || (len(list.Collections) > 0 && list.Collections[0].Capped()) {
		return nil
	}

	// The pipeline's documents as BSON: two pipelines share matches only when they are the same bytes.
	var project strings.Builder

	for _, stage := range l.stages {
		doc, err := bson.FromDocument(stage)
		if err != nil {
			return nil
		}

		raw, err := doc.Encode()
		if err != nil {
			return nil
		}

		project.Write(raw)
	}

	s := embeddedJoinCache

	s.mu.Lock()
	defer s.mu.Unlock()

	return &embeddedJoinCacheView{
		s:          s,
		from:       dbName + "." + l.from,
		field:      l.foreignField,
		project:    project.String(),
		generation: s.generation,
	}
}

// get returns the matches kept for a value's key.
func (v *embeddedJoinCacheView) get(key embeddedJoinKey) ([]wirebson.RawDocument, bool) {
	if v == nil || key.kind == 'z' {
		return nil, false
	}

	v.s.mu.Lock()
	defer v.s.mu.Unlock()

	if v.s.writes > 0 || v.s.generation != v.generation {
		return nil, false
	}

	matches, ok := v.s.matches[embeddedJoinCacheKey{from: v.from, field: v.field, project: v.project, key: key}]

	return matches, ok
}

// put keeps a value's matches, read since the view was taken, unless a write may have come between.
func (v *embeddedJoinCacheView) put(key embeddedJoinKey, matches []wirebson.RawDocument) {
	if v == nil || key.kind == 'z' {
		return
	}

	size := len(v.from) + len(v.field) + len(v.project) + len(key.s) + 64
	for _, m := range matches {
		size += len(m) + 24
	}

	v.s.mu.Lock()
	defer v.s.mu.Unlock()

	if v.s.writes > 0 || v.s.generation != v.generation {
		return
	}

	if v.s.bytes+size > embeddedJoinCacheMaxBytes {
		clear(v.s.matches)
		v.s.bytes = 0
	}

	v.s.matches[embeddedJoinCacheKey{from: v.from, field: v.field, project: v.project, key: key}] = matches
	v.s.bytes += size
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

// Package embedded holds the run-time switches of ferretdb-embedded's concerns. Each concern's environment variable
// is read here, once, and nowhere else; the concern's files use these values (tools/ferretdb/main.go lists them, and
// tests/foundation/ferretdb-patch-layout.test.ts checks that no other file reads one).
package embedded

import "os"

var (
	// PushdownOff (FERRETDB_EMBEDDED_PUSHDOWN=off): FerretDB's own query behaviour, nothing pushed down to SQLite,
	// its decoder and projection (pushdown.patch).
	PushdownOff = os.Getenv("FERRETDB_EMBEDDED_PUSHDOWN") == "off"

	// ReadpathOff (FERRETDB_EMBEDDED_READPATH=off): results the pushdown proved exact take FerretDB's own types and
	// conversion to BSON, statements are prepared at every run, command tags are parsed at every use, and NaNs are
	// looked for by the wire package in requests and replies (readpath.patch).
	ReadpathOff = os.Getenv("FERRETDB_EMBEDDED_READPATH") == "off"

	// ReadpathCheck (FERRETDB_EMBEDDED_READPATH=check): the read path's BSON is compared, document by document, with
	// FerretDB's own encoding; a difference fails the request. For the tests.
	ReadpathCheck = os.Getenv("FERRETDB_EMBEDDED_READPATH") == "check"

	// JoinCacheOff (FERRETDB_EMBEDDED_JOIN_CACHE=off): a join reads its looked-up documents at every command; none
	// are kept between commands (handler/embedded_readpath_cache.go, part of readpath.patch's concern).
	JoinCacheOff = os.Getenv("FERRETDB_EMBEDDED_JOIN_CACHE") == "off"

	// PushdownDatesOff (FERRETDB_EMBEDDED_PUSHDOWN_DATES=off): dates are not pushed down; a field holding one is
	// left to FerretDB, as before dates were modelled (backends/sqlite/embedded_pushdown_dates.go, part of
	// pushdown.patch's concern).
	PushdownDatesOff = os.Getenv("FERRETDB_EMBEDDED_PUSHDOWN_DATES") == "off"

	// PushdownNegationsOff (FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS=off): $ne and $nin are not pushed down (FerretDB
	// evaluates them over what SQLite returns, as before; backends/sqlite/embedded_pushdown_negations.go, part of
	// pushdown.patch's concern).
	PushdownNegationsOff = os.Getenv("FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS") == "off"

	// AtomicOff (FERRETDB_EMBEDDED_ATOMIC=off): FerretDB's own read-then-write updates, findAndModify and deletes,
	// and no embeddedAtomicWrites in buildInfo (atomic.patch).
	AtomicOff = os.Getenv("FERRETDB_EMBEDDED_ATOMIC") == "off"

	// LookupOff (FERRETDB_EMBEDDED_LOOKUP=off): no $lookup stage and no embeddedLookup in buildInfo (lookup.patch).
	LookupOff = os.Getenv("FERRETDB_EMBEDDED_LOOKUP") == "off"

	// ReplSetOff (FERRETDB_EMBEDDED_REPLSET=off): a standalone server, as FerretDB 1.24: hello names no replica set,
	// and sessions, transactions and retryable writes are not served (replset.patch).
	ReplSetOff = os.Getenv("FERRETDB_EMBEDDED_REPLSET") == "off"

	// CrudOff (FERRETDB_EMBEDDED_CRUD=off): FerretDB's own answers to the CRUD commands' options and inputs that the crud
	// concern adds (findAndModify's fields, comment documents, let, pipeline updates, arrayFilters, collation, field
	// names with '$' or '.', duplicate-key details, upsertedIds, $out and $merge, replies to unacknowledged writes), and
	// no embeddedCrud in buildInfo (crud.patch).
	CrudOff = os.Getenv("FERRETDB_EMBEDDED_CRUD") == "off"

	// EraseOff (FERRETDB_EMBEDDED_ERASE=off): FerretDB's own SQLite settings and compact: deleted text stays in free
	// pages and in the write-ahead log until reused (erase.patch).
	EraseOff = os.Getenv("FERRETDB_EMBEDDED_ERASE") == "off"

	// TestCommands (FERRETDB_EMBEDDED_TEST_COMMANDS=on): the commands MongoDB serves only with
	// `--setParameter enableTestCommands=1`, configureFailPoint among them (the fail points: handler/embedded_failpoint.go). Off unless set: the
	// service never sets it.
	TestCommands = os.Getenv("FERRETDB_EMBEDDED_TEST_COMMANDS") == "on"
)

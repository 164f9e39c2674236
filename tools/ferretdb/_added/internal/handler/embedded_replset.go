// Added by ferretdb-embedded (the project's patch; not part of FerretDB).
//
// A replica set of one (replset.patch): the embedded FerretDB answers `hello` as the primary of a single-node replica
// set, so a driver turns on what it turns on for MongoDB in production, and serves what that requires: sessions,
// multi-document transactions and retryable writes, as MongoDB runs them.
//
// Transactions. A transaction of a session (lsid, txnNumber, autocommit: false, startTransaction on its first
// command) runs its statements in one SQLite transaction per database it uses, on a connection of its own
// (fsql.Txn): it reads its own writes and, from its first statement on, one snapshot of the database (SQLite's WAL
// keeps it); nobody else sees its writes before commitTransaction, and all of them then at once, or none: on
// abortTransaction, after transactionLifetimeLimitSeconds (60 s by default), when the connection that last used it
// closes, or when the program dies (SQLite never commits what was not committed). SQLite has one writer per file,
// so a transaction takes its database's write gate (embedded_replset_gate.go) at its first write and holds it to its
// end: writers are serialised. A transaction waits for the gate in arrival order until its time limit (its lifetime,
// its command's maxTimeMS, or maxTransactionLockRequestTimeoutMillis when set; -1 by default here); past it, the
// waiter gets WriteConflict (112, TransientTransactionError) and is aborted, as is one that read a snapshot another
// writer has since written past. That is stricter than MongoDB's snapshot isolation, which lets two transactions write
// different documents side by side; docs/database.md says what it means for clients.
// Statements outside transactions that write take the same gate, shared, so they wait for a transaction's commit
// instead of failing in SQLite.
//
// Retryable writes. A write command with an lsid and a txnNumber but no autocommit is recorded with its answer; the
// same command sent again (same lsid and txnNumber) is not run again and gets the first answer.
//
// Errors carry MongoDB's codes and labels (embedded_replset_errors.go), so a driver's withTransaction and its
// retryable writes retry as on MongoDB.
//
// FERRETDB_EMBEDDED_REPLSET=off: a standalone server, as FerretDB 1.24 (sessions' fields ignored, no transactions).
package handler

import (
	"bytes"
	"context"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedReplSetName is the replica set's name, as `rs.initiate()` of a single-node set commonly gives it.
const embeddedReplSetName = "rs0"

// embeddedReplSetOff: the replica set's switch.
var embeddedReplSetOff = embedded.ReplSetOff

// embeddedElectionID is the primary's election id: one election, ever.
var embeddedElectionID = types.ObjectID{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}

// embeddedTxnNumberKey finds a txnNumber field in a command's BSON without decoding it (an int64 element).
var embeddedTxnNumberKey = []byte("\x12txnNumber\x00")

func init() {
	if embeddedReplSetOff {
		return
	}

	// Outside the fail points (order 20): a fail point's error gets the labels a transaction's or retryable write's
	// error gets.
	embeddedRegisterHook(10, embeddedReplSetHook)
	embeddedOnConnClosed(embeddedSessions.connClosed)

	embeddedAddedCommands["commitTransaction"] = embeddedCommitTransaction
	embeddedAddedCommands["abortTransaction"] = embeddedAbortTransaction
	embeddedAddedCommands["endSessions"] = embeddedEndSessions
	embeddedAddedCommands["killSessions"] = embeddedEndSessions
	embeddedAddedCommands["killAllSessions"] = embeddedKillAllSessions
	embeddedAddedCommands["killAllSessionsByPattern"] = embeddedKillAllSessions
	embeddedAddedCommands["refreshSessions"] = embeddedOK
	embeddedAddedCommands["setParameter"] = embeddedSetParameter
}

// embeddedReplSetHello adds the replica set's fields to hello's (and isMaster's) answer: the primary of a set of one,
// named by the address the client connected to (replset.patch calls it from hello).
func embeddedReplSetHello(ctx context.Context, res *types.Document) {
	if embeddedReplSetOff {
		return
	}

	addr := embeddedLocalAddr(ctx)
	if addr == "" {
		return
	}

	res.Set("setName", embeddedReplSetName)
	res.Set("setVersion", int32(1))
	res.Set("hosts", must.NotFail(types.NewArray(addr)))
	res.Set("primary", addr)
	res.Set("me", addr)
	res.Set("secondary", false)
	res.Set("electionId", embeddedElectionID)
	res.Set("lastWrite", must.NotFail(types.NewDocument(
		"lastWriteDate", time.Now().Truncate(time.Second),
		"majorityWriteDate", time.Now().Truncate(time.Second),
	)))
}

// embeddedReplSetHook runs every command: commands of a transaction run in it; retryable writes are recorded; other
// writes take their database's write gate, shared.
func embeddedReplSetHook(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	switch call.command {
	case "commitTransaction", "abortTransaction":
		// always with a txnNumber: answered below
	default:
		if !bytes.Contains(call.msg.RawSection0(), embeddedTxnNumberKey) {
			if !embeddedIsWrite(call.command) {
				return next(ctx)
			}

			return embeddedUnderSharedGate(ctx, call, next)
		}
	}

	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return next(ctx) // FerretDB's own command answers the malformed document
	}

	s, err := embeddedSessionOf(doc)
	if err != nil {
		return embeddedErrorReply(err, nil)
	}

	if s == nil {
		// a txnNumber without a session: the command's own check refuses it, as MongoDB does
		return next(ctx)
	}

	if _, isTxn := doc.Get("autocommit").(bool); isTxn {
		return embeddedInTransaction(ctx, call, next, s, doc)
	}

	if embeddedIsRetryableWrite(call.command) {
		return embeddedRetryableWrite(ctx, call, next, s, doc)
	}

	return next(ctx)
}

// embeddedIsWrite tells whether a command writes, so that it takes its database's write gate.
func embeddedIsWrite(command string) bool {
	switch command {
	case "insert", "update", "delete", "findAndModify", "findandmodify",
		"create", "createIndexes", "drop", "dropDatabase", "dropIndexes", "deleteIndexes", "collMod", "compact",
		"renameCollection", "createUser", "dropUser", "updateUser", "dropAllUsersFromDatabase":
		return true
	default:
		return false
	}
}

// embeddedIsRetryableWrite tells whether a command is one a driver retries as a retryable write.
func embeddedIsRetryableWrite(command string) bool {
	switch command {
	case "insert", "update", "delete", "findAndModify", "findandmodify", "bulkWrite": // bulkWrite: the crud concern's
		return true
	default:
		return false
	}
}

// embeddedCommandDB is the database a command names ($db), or renameCollection's source database.
func embeddedCommandDB(call *embeddedCall, doc *wirebson.Document) string {
	if call.command == "renameCollection" {
		if ns, ok := doc.Get("renameCollection").(string); ok {
			if i := bytes.IndexByte([]byte(ns), '.'); i > 0 {
				return ns[:i]
			}
		}
	}

	db, _ := doc.Get("$db").(string)

	return db
}

// embeddedUnderSharedGate runs a write outside any transaction under its database's write gate, shared with other
// such writes: it waits while a transaction writes in that database.
func embeddedUnderSharedGate(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return next(ctx)
	}

	release, err := embeddedGateShared(ctx, embeddedCommandDB(call, doc))
	if err != nil {
		return nil, err
	}
	defer release()

	return next(fsql.WithoutTxn(ctx))
}

// embeddedOK answers ok: for the session commands that need no more here.
func embeddedOK(context.Context, *embeddedCall) (*wire.OpMsg, error) {
	return documentOpMsg(must.NotFail(types.NewDocument("ok", float64(1))))
}

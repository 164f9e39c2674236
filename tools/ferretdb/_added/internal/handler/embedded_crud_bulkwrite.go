// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"fmt"
	"strings"

	"github.com/FerretDB/wire"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// MongoDB 8.0's client bulkWrite (crud concern): one command on the admin database writes to any collections.
// `ops` are its operations ({insert: i, document}, {update: i, filter, updateMods, multi, upsert, arrayFilters,
// hint, collation, sort}, {delete: i, filter, multi, hint, collation}), i indexing `nsInfo` ({ns: "db.coll"});
// `ordered` (default true) stops at the first error, `errorsOnly` answers only the errors; `let`,
// `bypassDocumentValidation` and `comment` apply to every operation. Each operation runs as the insert, update or
// delete command of its collection, through the crud concern's features and FerretDB's own handlers, in the
// transaction the bulkWrite runs in (else under its database's write gate, as other writes), so that atomic writes,
// transactions and retryable writes (the bulkWrite as a whole, replset concern) keep working. The answer is
// MongoDB's: a cursor of per-operation results ({ok, idx, n, nModified, upserted: {_id}} or {ok: 0, idx, code,
// errmsg, ...}), all in its first batch, and the totals nErrors, nInserted, nMatched, nModified, nUpserted,
// nDeleted.
func init() {
	if embedded.CrudOff {
		return // FerretDB's own: no such command
	}

	embeddedAddedCommands["bulkWrite"] = embeddedCrudBulkWrite
}

// embeddedCrudBulkWriteTotals are the totals of a client bulkWrite's answer.
type embeddedCrudBulkWriteTotals struct {
	errors, inserted, matched, modified, upserted, deleted int32
}

func embeddedCrudBulkWrite(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	doc, err := opMsgDocument(call.msg)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if db, _ := doc.Get("$db"); db != "admin" {
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrUnauthorized,
			"bulkWrite may only be run against the admin database.",
		)
	}

	ops, err := embeddedCrudBulkWriteArray(doc, "ops")
	if err != nil {
		return nil, err
	}

	nsInfo, err := embeddedCrudBulkWriteArray(doc, "nsInfo")
	if err != nil {
		return nil, err
	}

	ordered := true
	if v, _ := doc.Get("ordered"); v == false {
		ordered = false
	}

	errorsOnly, _ := doc.Get("errorsOnly")

	var totals embeddedCrudBulkWriteTotals
	batch := types.MakeArray(ops.Len())

	for i := range ops.Len() {
		op, _ := must.NotFail(ops.Get(i)).(*types.Document)
		if op == nil {
			return nil, handlererrors.NewCommandErrorMsg(handlererrors.ErrTypeMismatch, "ops: each operation must be a document")
		}

		kind, db, sub, err := embeddedCrudBulkWriteCommand(doc, op, nsInfo)
		if err != nil {
			return nil, err
		}

		msg, err := documentOpMsg(sub)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		subCall := &embeddedCall{h: call.h, conn: call.conn, netConn: call.netConn, msg: msg, command: kind}

		reply, runErr, err := embeddedCrudBulkWriteRun(ctx, subCall, db)
		if err != nil {
			return nil, err
		}

		entry := embeddedCrudBulkWriteEntry(kind, int32(i), reply, runErr, &totals)

		if ok, _ := entry.Get("ok"); ok != float64(1) {
			totals.errors++
			batch.Append(entry)

			if ordered {
				break
			}

			continue
		}

		if errorsOnly != true {
			batch.Append(entry)
		}
	}

	return documentOpMsg(must.NotFail(types.NewDocument(
		"cursor", must.NotFail(types.NewDocument(
			"id", int64(0),
			"firstBatch", batch,
			"ns", "admin.$cmd.bulkWrite",
		)),
		"nErrors", totals.errors,
		"nInserted", totals.inserted,
		"nMatched", totals.matched,
		"nModified", totals.modified,
		"nUpserted", totals.upserted,
		"nDeleted", totals.deleted,
		"ok", float64(1),
	)))
}

// embeddedCrudBulkWriteArray is the command's array field name (a document sequence or in the command).
func embeddedCrudBulkWriteArray(doc *types.Document, name string) (*types.Array, error) {
	v, err := doc.Get(name)
	if err != nil {
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrMissingField,
			fmt.Sprintf("BSON field 'bulkWrite.%s' is missing but a required field", name),
		)
	}

	arr, ok := v.(*types.Array)
	if !ok {
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrTypeMismatch,
			fmt.Sprintf("BSON field 'bulkWrite.%s' is the wrong type '%T', expected type 'array'", name, v),
		)
	}

	return arr, nil
}

// embeddedCrudBulkWriteCommand builds the command that runs one operation: insert, update or delete on the
// collection of its namespace, with one statement; it returns the command's name and database.
func embeddedCrudBulkWriteCommand(top, op *types.Document, nsInfo *types.Array) (string, string, *types.Document, error) { //nolint:lll // for readability
	keys := op.Keys()
	if len(keys) == 0 {
		return "", "", nil, handlererrors.NewCommandErrorMsg(handlererrors.ErrFailedToParse, "ops: an operation is empty")
	}

	kind := keys[0]
	if kind != "insert" && kind != "update" && kind != "delete" {
		return "", "", nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrFailedToParse,
			fmt.Sprintf("Unrecognized bulkWrite operation: %s", kind),
		)
	}

	var index int
	switch v := must.NotFail(op.Get(kind)).(type) {
	case int32:
		index = int(v)
	case int64:
		index = int(v)
	case float64:
		index = int(v)
	default:
		return "", "", nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrTypeMismatch,
			fmt.Sprintf("BSON field 'bulkWrite.ops.%s' is the wrong type, expected a number", kind),
		)
	}

	if index < 0 || index >= nsInfo.Len() {
		return "", "", nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrBadValue,
			fmt.Sprintf("BulkWrite ops entry %s has an invalid nsInfo index %d", kind, index),
		)
	}

	var ns string
	if info, ok := must.NotFail(nsInfo.Get(index)).(*types.Document); ok {
		ns, _ = embeddedCrudGet(info, "ns").(string)
	}

	db, coll, found := strings.Cut(ns, ".")
	if !found || db == "" || coll == "" {
		return "", "", nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrInvalidNamespace,
			fmt.Sprintf("Invalid namespace specified '%s'", ns),
		)
	}

	field := func(name string) any {
		v, _ := op.Get(name)
		return v
	}

	sub := must.NotFail(types.NewDocument(kind, coll))

	switch kind {
	case "insert":
		sub.Set("documents", must.NotFail(types.NewArray(field("document"))))

	case "update":
		statement := must.NotFail(types.NewDocument("q", field("filter"), "u", field("updateMods")))

		for _, name := range []string{"multi", "upsert", "arrayFilters", "hint", "collation", "sort"} {
			if v := field(name); v != nil {
				statement.Set(name, v)
			}
		}

		sub.Set("updates", must.NotFail(types.NewArray(statement)))

	case "delete":
		limit := int32(1)
		if field("multi") == true {
			limit = 0
		}

		statement := must.NotFail(types.NewDocument("q", field("filter"), "limit", limit))

		for _, name := range []string{"hint", "collation"} {
			if v := field(name); v != nil {
				statement.Set(name, v)
			}
		}

		sub.Set("deletes", must.NotFail(types.NewArray(statement)))
	}

	sub.Set("ordered", true)

	// as MongoDB's own commands take them: bypassDocumentValidation by the writes that validate, let by those that
	// filter
	names := []string{"comment"}
	if kind != "delete" {
		names = append(names, "bypassDocumentValidation")
	}

	if kind != "insert" {
		names = append(names, "let")
	}

	for _, name := range names {
		if v, err := top.Get(name); err == nil {
			sub.Set(name, v)
		}
	}

	sub.Set("$db", db)

	return kind, db, sub, nil
}

// embeddedCrudBulkWriteRun runs one operation's command: in the bulkWrite's transaction, taking the write gate of
// the operation's database for it; outside one, under that gate shared, as any write. It returns the command's
// answer or error, and an error that ends the whole bulkWrite (the gate could not be taken).
func embeddedCrudBulkWriteRun(ctx context.Context, sub *embeddedCall, db string) (*wire.OpMsg, error, error) { //nolint:revive,lll // the command's error is an answer, the last ends the command
	run := func(ctx context.Context) (*wire.OpMsg, error) { return embeddedCrudHook(ctx, sub, sub.run) }

	if txn, _ := ctx.Value(embeddedTxnKey{}).(*embeddedTxn); txn != nil {
		if txn.inProgress() {
			if err := txn.takeGate(ctx, db, 0); err != nil { // the transaction's own time limit
				txn.abort("it waited too long to write")
				return nil, nil, err
			}
		}

		reply, err := run(ctx)

		return reply, err, nil
	}

	release, err := embeddedGateShared(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	defer release()

	reply, runErr := run(fsql.WithoutTxn(ctx))

	return reply, runErr, nil
}

// embeddedCrudBulkWriteEntry is an operation's result in the bulkWrite's cursor, from its command's answer; it adds
// the operation's counts to totals.
func embeddedCrudBulkWriteEntry(kind string, idx int32, reply *wire.OpMsg, runErr error, totals *embeddedCrudBulkWriteTotals) *types.Document { //nolint:lll // for readability
	failed := func(code int32, errmsg string, from *types.Document) *types.Document {
		entry := must.NotFail(types.NewDocument("ok", float64(0), "idx", idx, "code", code))

		if name := handlererrors.ErrorCode(code).String(); name != "" && !strings.HasPrefix(name, "ErrorCode(") {
			entry.Set("codeName", name)
		}

		entry.Set("errmsg", errmsg)

		if from != nil {
			for _, name := range []string{"keyPattern", "keyValue", "errInfo"} {
				if v, err := from.Get(name); err == nil {
					entry.Set(name, v)
				}
			}
		}

		return entry
	}

	var res *types.Document

	if runErr == nil && reply != nil {
		var err error
		if res, err = opMsgDocument(reply); err != nil {
			runErr = err
		}
	}

	if runErr != nil || res == nil {
		if runErr == nil {
			runErr = lazyerrors.New("no answer")
		}

		errDoc := handlererrors.ProtocolError(runErr).Document()
		code, _ := errDoc.Get("code").(int32)
		errmsg, _ := errDoc.Get("errmsg").(string)

		return failed(code, errmsg, nil)
	}

	if ok, _ := res.Get("ok"); ok != float64(1) && ok != int32(1) {
		code, _ := embeddedCrudGet(res, "code").(int32)
		errmsg, _ := embeddedCrudGet(res, "errmsg").(string)

		return failed(code, errmsg, res)
	}

	n := embeddedCrudInt32(res, "n")

	if v, err := res.Get("writeErrors"); err == nil {
		if arr, ok := v.(*types.Array); ok && arr.Len() > 0 {
			if we, ok := must.NotFail(arr.Get(0)).(*types.Document); ok {
				code, _ := embeddedCrudGet(we, "code").(int32)
				errmsg, _ := embeddedCrudGet(we, "errmsg").(string)

				return failed(code, errmsg, we)
			}
		}
	}

	entry := must.NotFail(types.NewDocument("ok", float64(1), "idx", idx, "n", n))

	switch kind {
	case "insert":
		totals.inserted += n

	case "delete":
		totals.deleted += n

	case "update":
		modified := embeddedCrudInt32(res, "nModified")
		entry.Set("nModified", modified)
		totals.modified += modified

		upserted := int32(0)

		if v, err := res.Get("upserted"); err == nil {
			if arr, ok := v.(*types.Array); ok && arr.Len() > 0 {
				if u, ok := must.NotFail(arr.Get(0)).(*types.Document); ok {
					id, _ := u.Get("_id")
					entry.Set("upserted", must.NotFail(types.NewDocument("_id", id)))
					upserted = 1
				}
			}
		}

		totals.upserted += upserted
		totals.matched += n - upserted
	}

	return entry
}

// embeddedCrudInt32 is a count of an answer (0 when absent).
func embeddedCrudInt32(doc *types.Document, name string) int32 {
	switch v := embeddedCrudGet(doc, name).(type) {
	case int32:
		return v
	case int64:
		return int32(v)
	case float64:
		return int32(v)
	default:
		return 0
	}
}

// embeddedCrudGet is a document's field, nil when absent.
func embeddedCrudGet(doc *types.Document, name string) any {
	v, _ := doc.Get(name)
	return v
}

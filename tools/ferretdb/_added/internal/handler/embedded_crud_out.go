// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations/stages"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Aggregations that write, and database-level aggregations (crud concern): FerretDB refused $out and $merge
// (NotImplemented) and `aggregate: 1` (FailedToParse). Such an aggregate is answered here: its documents are read
// (a collection's, all of them; or $documents' list, or $listLocalSessions' sessions for `aggregate: 1`), its stages
// run with FerretDB's own stage implementations, and the result is written:
//   - $out: the target's documents are deleted, then the result inserted (the target's indexes stay); not atomic:
//     an error while inserting leaves the target with what was inserted so far (MongoDB keeps the old contents);
//   - $merge: each document is looked up in the target by `on` (default _id): whenMatched "merge" ($set of its
//     fields, the default), "replace", "keepExisting" or "fail" (a duplicate-key error); whenNotMatched "insert"
//     (the default), "discard" or "fail"; a pipeline for whenMatched is refused with NotImplemented.
// The whole result is answered in the first batch (no cursor is kept open).

// embeddedCrudSessions are the sessions that commands named (lsid), for $listLocalSessions.
var embeddedCrudSessions = struct {
	mu   sync.Mutex
	seen map[string]embeddedCrudSession
}{seen: map[string]embeddedCrudSession{}}

type embeddedCrudSession struct {
	id       any
	lastUsed time.Time
}

// embeddedCrudNoteSession remembers a command's session (from its top level, shallowly decoded).
func embeddedCrudNoteSession(top *wirebson.Document) {
	raw, ok := top.Get("lsid").(wirebson.RawDocument)
	if !ok {
		return
	}

	lsid, err := raw.Decode()
	if err != nil {
		return
	}

	id, ok := lsid.Get("id").(wirebson.Binary)
	if !ok {
		return
	}

	embeddedCrudSessions.mu.Lock()
	defer embeddedCrudSessions.mu.Unlock()

	if len(embeddedCrudSessions.seen) > 10000 {
		clear(embeddedCrudSessions.seen)
	}

	embeddedCrudSessions.seen[string(id.B)] = embeddedCrudSession{
		id:       types.Binary{B: slices.Clone(id.B), Subtype: types.BinarySubtype(id.Subtype)},
		lastUsed: time.Now(),
	}
}

// embeddedCrudAggregateAnswer answers an aggregate that writes or reads no collection; nil for any other command.
func embeddedCrudAggregateAnswer(call *embeddedCall, doc *types.Document) func(ctx context.Context) (*wire.OpMsg, error) {
	if call.command != "aggregate" {
		return nil
	}

	pv, _ := doc.Get("pipeline")

	pipeline, ok := pv.(*types.Array)
	if !ok || pipeline.Len() == 0 {
		return nil
	}

	target, _ := doc.Get("aggregate")
	_, isColl := target.(string)

	last, _ := must.NotFail(pipeline.Get(pipeline.Len() - 1)).(*types.Document)
	writes := last != nil && last.Len() == 1 && (last.Has("$out") || last.Has("$merge"))

	if isColl && !writes {
		return nil
	}

	if !isColl {
		if n, ok := embeddedCrudAggregateOne(target); !ok || n != 1 {
			return nil
		}
	}

	return func(ctx context.Context) (*wire.OpMsg, error) {
		// as MongoDB: a write stage cannot run under the linearizable read concern
		if rc, _ := doc.Get("readConcern"); rc != nil && writes {
			if d, ok := rc.(*types.Document); ok {
				if level, _ := d.Get("level"); level == "linearizable" {
					return nil, handlererrors.NewCommandErrorMsgWithArgument(
						handlererrors.ErrInvalidOptions,
						"$out and $merge cannot be used with a 'linearizable' read concern level",
						"readConcern",
					)
				}
			}
		}

		return embeddedCrudAggregate(ctx, call.h, doc, pipeline, writes)
	}
}

func embeddedCrudAggregateOne(v any) (float64, bool) {
	switch v := v.(type) {
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}

	return 0, false
}

func embeddedCrudAggregate(ctx context.Context, h *Handler, doc *types.Document, pipeline *types.Array, writes bool) (*wire.OpMsg, error) { //nolint:lll // for readability
	dbName, _ := must.NotFail(doc.Get("$db")).(string)
	collName, isColl := must.NotFail(doc.Get("aggregate")).(string)

	closer := iterator.NewMultiCloser()
	defer closer.Close()

	var iter types.DocumentsIterator

	first := 0

	if isColl {
		db, err := h.b.Database(dbName)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		c, err := db.Collection(collName)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		res, err := c.Query(ctx, new(backends.QueryParams))
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		iter = res.Iter
		closer.Add(iter)
	} else {
		docs, err := embeddedCrudFirstStage(must.NotFail(pipeline.Get(0)))
		if err != nil {
			return nil, err
		}

		iter = iterator.Values(iterator.ForSlice(docs))
		closer.Add(iter)
		first = 1
	}

	end := pipeline.Len()
	if writes {
		end--
	}

	for i := first; i < end; i++ {
		stageDoc, ok := must.NotFail(pipeline.Get(i)).(*types.Document)
		if !ok {
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrTypeMismatch, "Each element of the 'pipeline' array must be an object", "pipeline",
			)
		}

		var st aggregations.Stage
		var err error

		if spec, ok := stageDoc.Get("$project"); ok == nil && !isColl && stageDoc.Len() == 1 {
			d, isDoc := spec.(*types.Document)
			if !isDoc {
				return nil, handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrProjectBadExpression, "$project specification must be an object", "$project (stage)",
				)
			}

			st = stages.EmbeddedCrudProjectStage(d)
		} else if st, err = stages.NewStage(stageDoc); err != nil {
			return nil, err
		}

		if iter, err = st.Process(ctx, iter, closer); err != nil {
			return nil, err
		}
	}

	docs, err := iterator.ConsumeValues(iter)
	if err != nil {
		return nil, err
	}

	ns := dbName + ".$cmd.aggregate"
	if isColl {
		ns = dbName + "." + collName
	}

	if writes {
		last := must.NotFail(pipeline.Get(pipeline.Len() - 1)).(*types.Document)

		var reply *wire.OpMsg

		if last.Has("$out") {
			reply, err = embeddedCrudOut(ctx, h, dbName, must.NotFail(last.Get("$out")), docs)
		} else {
			reply, err = embeddedCrudMerge(ctx, h, dbName, must.NotFail(last.Get("$merge")), docs)
		}

		if err != nil || reply != nil {
			return reply, err
		}

		docs = nil
	}

	batch := types.MakeArray(len(docs))
	for _, d := range docs {
		batch.Append(d)
	}

	return documentOpMsg(must.NotFail(types.NewDocument(
		"cursor", must.NotFail(types.NewDocument("firstBatch", batch, "id", int64(0), "ns", ns)),
		"ok", float64(1),
	)))
}

// embeddedCrudFirstStage is the documents of a database-level aggregate's first stage.
func embeddedCrudFirstStage(v any) ([]*types.Document, error) {
	stage, _ := v.(*types.Document)
	if stage == nil || stage.Len() != 1 {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrTypeMismatch, "Each element of the 'pipeline' array must be an object", "pipeline",
		)
	}

	switch name := stage.Keys()[0]; name {
	case "$documents":
		arr, ok := must.NotFail(stage.Get(name)).(*types.Array)
		if !ok {
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrNotImplemented,
				"the embedded database implements $documents with a list of documents only", "$documents",
			)
		}

		docs := make([]*types.Document, 0, arr.Len())

		for i := range arr.Len() {
			d, ok := must.NotFail(arr.Get(i)).(*types.Document)
			if !ok {
				return nil, handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrTypeMismatch, "$documents must evaluate to an array of objects", "$documents",
				)
			}

			docs = append(docs, d)
		}

		return docs, nil

	case "$listLocalSessions":
		embeddedCrudSessions.mu.Lock()
		defer embeddedCrudSessions.mu.Unlock()

		docs := make([]*types.Document, 0, len(embeddedCrudSessions.seen))
		for _, s := range embeddedCrudSessions.seen {
			docs = append(docs, must.NotFail(types.NewDocument(
				"_id", must.NotFail(types.NewDocument("id", s.id)),
				"lastUse", s.lastUsed,
			)))
		}

		return docs, nil

	default:
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrNotImplemented,
			fmt.Sprintf("the embedded database does not implement the database-level aggregate stage %s", name),
			"aggregate",
		)
	}
}

// embeddedCrudTarget is the database and collection a $out or $merge names.
func embeddedCrudTarget(dbName string, v any, stage string) (string, string, error) {
	switch v := v.(type) {
	case string:
		return dbName, v, nil
	case *types.Document:
		db, coll := dbName, ""

		if d, err := v.Get("db"); err == nil {
			if s, ok := d.(string); ok {
				db = s
			}
		}

		if c, err := v.Get("coll"); err == nil {
			coll, _ = c.(string)
		}

		if coll != "" {
			return db, coll, nil
		}
	}

	return "", "", handlererrors.NewCommandErrorMsgWithArgument(
		handlererrors.ErrFailedToParse, fmt.Sprintf("%s needs the name of a collection", stage), stage,
	)
}

// embeddedCrudRun runs one of FerretDB's commands (no hooks) and returns its reply document.
func embeddedCrudRun(ctx context.Context, h *Handler, cmd *types.Document) (*types.Document, error) {
	msg, err := documentOpMsg(cmd)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	command := cmd.Command()

	reply, err := h.Commands()[command].Handler(ctx, msg)
	if err != nil {
		return nil, err
	}

	return opMsgDocument(reply)
}

// embeddedCrudWriteError is the first write error of a reply, as a command error reply; nil when none.
func embeddedCrudWriteError(res *types.Document) (*wire.OpMsg, error) {
	wes, _ := res.Get("writeErrors")

	arr, ok := wes.(*types.Array)
	if !ok || arr.Len() == 0 {
		return nil, nil
	}

	we := must.NotFail(arr.Get(0)).(*types.Document)
	out := must.NotFail(types.NewDocument("ok", float64(0)))

	for _, k := range []string{"errmsg", "code", "codeName", "keyPattern", "keyValue"} {
		if v, err := we.Get(k); err == nil {
			out.Set(k, v)
		}
	}

	if !out.Has("codeName") {
		if code, ok := must.NotFail(we.Get("code")).(int32); ok {
			out.Set("codeName", handlererrors.ErrorCode(code).String())
		}
	}

	return documentOpMsg(out)
}

func embeddedCrudOut(ctx context.Context, h *Handler, dbName string, spec any, docs []*types.Document) (*wire.OpMsg, error) { //nolint:lll // for readability
	db, coll, err := embeddedCrudTarget(dbName, spec, "$out")
	if err != nil {
		return nil, err
	}

	if _, err = embeddedCrudRun(ctx, h, must.NotFail(types.NewDocument(
		"delete", coll,
		"deletes", must.NotFail(types.NewArray(must.NotFail(types.NewDocument("q", types.MakeDocument(0), "limit", int32(0))))),
		"$db", db,
	))); err != nil {
		return nil, err
	}

	if len(docs) == 0 {
		_, err = embeddedCrudRun(ctx, h, must.NotFail(types.NewDocument("create", coll, "$db", db)))
		if err != nil && handlererrors.ProtocolError(err).Document().Get("code") != int32(handlererrors.ErrNamespaceExists) {
			return nil, err
		}

		return nil, nil
	}

	arr := types.MakeArray(len(docs))
	for _, d := range docs {
		arr.Append(d)
	}

	res, err := embeddedCrudRun(ctx, h, must.NotFail(types.NewDocument(
		"insert", coll, "documents", arr, "ordered", true, "$db", db,
	)))
	if err != nil {
		return nil, err
	}

	return embeddedCrudWriteError(res)
}

func embeddedCrudMerge(ctx context.Context, h *Handler, dbName string, spec any, docs []*types.Document) (*wire.OpMsg, error) { //nolint:lll // for readability
	var into any = spec

	on := []string{"_id"}
	whenMatched, whenNotMatched := "merge", "insert"

	if d, ok := spec.(*types.Document); ok {
		into, _ = d.Get("into")

		if v, err := d.Get("on"); err == nil {
			switch v := v.(type) {
			case string:
				on = []string{v}
			case *types.Array:
				on = nil
				for i := range v.Len() {
					s, _ := must.NotFail(v.Get(i)).(string)
					on = append(on, s)
				}
			}
		}

		if v, err := d.Get("whenMatched"); err == nil {
			s, ok := v.(string)
			if !ok {
				return nil, handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrNotImplemented,
					"the embedded database does not implement a pipeline for $merge's whenMatched", "$merge",
				)
			}

			whenMatched = s
		}

		if v, err := d.Get("whenNotMatched"); err == nil {
			whenNotMatched, _ = v.(string)
		}
	}

	db, coll, err := embeddedCrudTarget(dbName, into, "$merge")
	if err != nil {
		return nil, err
	}

	for _, d := range docs {
		if !d.Has("_id") {
			d.Set("_id", types.NewObjectID())
		}

		q := types.MakeDocument(len(on))
		for _, f := range on {
			v, err := d.GetByPath(must.NotFail(types.NewPathFromString(f)))
			if err != nil {
				v = types.Null
			}

			q.Set(f, v)
		}

		found, err := embeddedCrudRun(ctx, h, must.NotFail(types.NewDocument(
			"count", coll, "query", q, "$db", db,
		)))
		if err != nil {
			return nil, err
		}

		n, _ := found.Get("n")
		matched := n != int32(0) && n != int64(0)

		var cmd *types.Document

		switch {
		case matched && whenMatched == "fail", !matched && whenNotMatched == "insert":
			cmd = must.NotFail(types.NewDocument(
				"insert", coll, "documents", must.NotFail(types.NewArray(d)), "$db", db,
			))
		case matched && whenMatched == "merge":
			set := d.DeepCopy()
			for _, f := range append(on, "_id") {
				set.Remove(f)
			}

			if set.Len() == 0 {
				continue
			}

			cmd = embeddedCrudUpdateCmd(coll, db, q, must.NotFail(types.NewDocument("$set", set)))
		case matched && whenMatched == "replace":
			r := d.DeepCopy()
			r.Remove("_id")
			cmd = embeddedCrudUpdateCmd(coll, db, q, r)
		case matched && whenMatched == "keepExisting", !matched && whenNotMatched == "discard":
			continue
		case !matched && whenNotMatched == "fail":
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrorCode(13113),
				"$merge could not find a matching document in the target collection for at least one document "+
					"in the source collection",
				"$merge",
			)
		default:
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrBadValue,
				fmt.Sprintf("Enumeration value '%s' for field 'whenMatched' / '%s' for 'whenNotMatched' is not a valid value",
					whenMatched, whenNotMatched),
				"$merge",
			)
		}

		res, err := embeddedCrudRun(ctx, h, cmd)
		if err != nil {
			return nil, err
		}

		if reply, err := embeddedCrudWriteError(res); reply != nil || err != nil {
			if matched && whenMatched == "fail" {
				return embeddedCrudMergeDuplicate(db, coll, q)
			}

			return reply, err
		}
	}

	return nil, nil
}

func embeddedCrudUpdateCmd(coll, db string, q, u *types.Document) *types.Document {
	return must.NotFail(types.NewDocument(
		"update", coll,
		"updates", must.NotFail(types.NewArray(must.NotFail(types.NewDocument("q", q, "u", u)))),
		"$db", db,
	))
}

// embeddedCrudMergeDuplicate is $merge's duplicate-key error (whenMatched: "fail").
func embeddedCrudMergeDuplicate(db, coll string, key *types.Document) (*wire.OpMsg, error) {
	pattern := types.MakeDocument(key.Len())
	for _, k := range key.Keys() {
		pattern.Set(k, int32(1))
	}

	return documentOpMsg(must.NotFail(types.NewDocument(
		"ok", float64(0),
		"errmsg", fmt.Sprintf("E11000 duplicate key error collection: %s.%s dup key: %s", db, coll,
			types.FormatAnyValue(key)),
		"code", int32(handlererrors.ErrDuplicateKeyInsert),
		"codeName", "DuplicateKey",
		"keyPattern", pattern,
		"keyValue", key,
	)))
}

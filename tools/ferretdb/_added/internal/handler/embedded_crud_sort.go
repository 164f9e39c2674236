// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// MongoDB 8.0's `sort` of an update statement (updateOne, replaceOne, and their client bulkWrite operations): of the
// documents the filter matches, the first in that order is updated (crud concern). FerretDB's update knows no sort:
// the statement's document is found first (find with the filter, the sort and limit 1, in the command's transaction
// if any), and the statement then updates the document with that _id which still matches the filter. When none
// matches, the statement runs as sent (an upsert inserts). MongoDB refuses a sort with multi: true, so does this.
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudSort)
}

func embeddedCrudSort(ctx context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) {
	if call.command != "update" {
		return false, nil, nil
	}

	v, _ := doc.Get("updates")

	updates, ok := v.(*types.Array)
	if !ok {
		return false, nil, nil
	}

	var changed bool

	for i := range updates.Len() {
		statement, ok := must.NotFail(updates.Get(i)).(*types.Document)
		if !ok || !statement.Has("sort") {
			continue
		}

		sort := must.NotFail(statement.Get("sort"))
		statement.Remove("sort")
		changed = true

		if multi, _ := statement.Get("multi"); multi == true {
			return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrFailedToParse,
				"Cannot specify sort with multi=true",
				"sort",
			)
		}

		sortDoc, ok := sort.(*types.Document)
		if !ok {
			return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrTypeMismatch,
				"BSON field 'update.updates.sort' is the wrong type, expected type 'object'",
				"sort",
			)
		}

		if sortDoc.Len() == 0 {
			continue
		}

		filter, _ := statement.Get("q")
		if filter == nil {
			filter = must.NotFail(types.NewDocument())
		}

		id, found, err := embeddedCrudSortFirst(ctx, call, doc, filter, sortDoc)
		if err != nil {
			return false, nil, err
		}

		if found {
			statement.Set("q", must.NotFail(types.NewDocument("$and", must.NotFail(types.NewArray(
				filter,
				must.NotFail(types.NewDocument("_id", id)),
			)))))
		}
	}

	return changed, nil, nil
}

// embeddedCrudSortFirst finds the _id of the first document the filter matches in the sort's order.
func embeddedCrudSortFirst(ctx context.Context, call *embeddedCall, doc *types.Document, filter any, sort *types.Document) (any, bool, error) { //nolint:lll // for readability
	coll, _ := doc.Get("update")
	db, _ := doc.Get("$db")

	find := must.NotFail(types.NewDocument(
		"find", coll,
		"filter", filter,
		"sort", sort,
		"projection", must.NotFail(types.NewDocument("_id", int32(1))),
		"limit", int64(1),
		"singleBatch", true,
	))

	if l, err := doc.Get("let"); err == nil {
		find.Set("let", l)
	}

	find.Set("$db", db)

	msg, err := documentOpMsg(find)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	sub := &embeddedCall{h: call.h, conn: call.conn, netConn: call.netConn, msg: msg, command: "find"}

	reply, err := embeddedCrudHook(ctx, sub, sub.run)
	if err != nil {
		return nil, false, err
	}

	res, err := opMsgDocument(reply)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	cursor, _ := embeddedCrudGet(res, "cursor").(*types.Document)
	if cursor == nil {
		return nil, false, nil
	}

	batch, _ := embeddedCrudGet(cursor, "firstBatch").(*types.Array)
	if batch == nil || batch.Len() == 0 {
		return nil, false, nil
	}

	first, _ := must.NotFail(batch.Get(0)).(*types.Document)
	if first == nil {
		return nil, false, nil
	}

	id, err := first.Get("_id")
	if err != nil {
		return nil, false, nil
	}

	return id, true, nil
}

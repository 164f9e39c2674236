// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embeddedcrud"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Duplicate-key errors name the index and the key (crud concern): MongoDB's 11000 error (a write error of insert and
// update, findAndModify's command error) has keyPattern and keyValue, and its message names the index and the key;
// FerretDB's said only "E11000 duplicate key error collection: db.coll". The unique index is found by looking for
// another document with the same key, among the collection's unique indexes. An update's refusal by a unique index
// is a duplicate-key error too (backends/sqlite/embedded_crud_unique.go), as on MongoDB.
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudDuplicate)
}

func embeddedCrudDuplicate(ctx context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) {
	switch call.command {
	case "insert", "update", "findAndModify", "findandmodify":
	default:
		return false, nil, nil
	}

	dbName, _ := doc.Get("$db")
	collName, _ := doc.Get(doc.Command())
	db, _ := dbName.(string)
	coll, _ := collName.(string)

	var inserted *types.Array
	if call.command == "insert" {
		inserted, _ = must.NotFail(doc.Get("documents")).(*types.Array)
	}

	after := func(reply *types.Document) error {
		// findAndModify: the command's error
		if code, _ := reply.Get("code"); code == int32(handlererrors.ErrDuplicateKeyInsert) {
			embeddedCrudDuplicateDetails(ctx, call.h, db, coll, reply, common.EmbeddedCrudDuplicateDoc(ctx))
			return nil
		}

		// insert, update: write errors
		wes, _ := reply.Get("writeErrors")

		arr, ok := wes.(*types.Array)
		if !ok {
			return nil
		}

		for i := range arr.Len() {
			we, ok := must.NotFail(arr.Get(i)).(*types.Document)
			if !ok {
				continue
			}

			if code, _ := we.Get("code"); code != int32(handlererrors.ErrDuplicateKeyInsert) {
				continue
			}

			var written *types.Document

			if inserted != nil {
				if idx, ok := must.NotFail(we.Get("index")).(int32); ok && int(idx) < inserted.Len() {
					written, _ = must.NotFail(inserted.Get(int(idx))).(*types.Document)
				}
			} else {
				written = common.EmbeddedCrudDuplicateDoc(ctx)
			}

			embeddedCrudDuplicateDetails(ctx, call.h, db, coll, we, written)
		}

		return nil
	}

	return false, after, nil
}

// embeddedCrudDuplicateReply turns a duplicate-key command error into its reply, for the details; other errors stay.
func embeddedCrudDuplicateReply(err error) (*wire.OpMsg, error) {
	var ce *handlererrors.CommandError
	if errors.As(err, &ce) && ce.Code() == handlererrors.ErrDuplicateKeyInsert {
		return wire.NewOpMsg(ce.Document())
	}

	// update's write errors
	var we *handlererrors.WriteErrors
	if !errors.As(err, &we) {
		return nil, err
	}

	doc := we.Document()

	if list, ok := doc.Get("writeErrors").(*wirebson.Array); ok {
		for i := range list.Len() {
			if e, ok := list.Get(i).(*wirebson.Document); ok && e.Get("code") == int32(handlererrors.ErrDuplicateKeyInsert) {
				return wire.NewOpMsg(doc)
			}
		}
	}

	return nil, err
}

// embeddedCrudDuplicateDetails adds keyPattern, keyValue and the index to an 11000 error about written.
func embeddedCrudDuplicateDetails(ctx context.Context, h *Handler, db, coll string, errDoc, written *types.Document) {
	if written == nil {
		return
	}

	database, err := h.b.Database(db)
	if err != nil {
		return
	}

	c, err := database.Collection(coll)
	if err != nil {
		return
	}

	indexes, err := c.ListIndexes(ctx, new(backends.ListIndexesParams))
	if err != nil {
		return
	}

	id, _ := written.Get("_id")

	// _id last: an update's document has the _id it had (the other unique indexes tell what it hit)
	list := slices.Clone(indexes.Indexes)
	slices.SortStableFunc(list, func(a, b backends.IndexInfo) int {
		return cmp.Compare(embeddedCrudIsID(a), embeddedCrudIsID(b))
	})

	for _, index := range list {
		if !index.Unique && index.Name != "_id_" {
			continue
		}

		pattern := types.MakeDocument(len(index.Key))
		value := types.MakeDocument(len(index.Key))
		filter := types.MakeDocument(len(index.Key) + 1)
		var shown []string

		for _, k := range index.Key {
			dir := int32(1)
			if k.Descending {
				dir = -1
			}

			pattern.Set(k.Field, dir)

			v, err := written.GetByPath(must.NotFail(types.NewPathFromString(k.Field)))
			if err != nil {
				v = types.Null
			}

			value.Set(k.Field, v)
			filter.Set(k.Field, must.NotFail(types.NewDocument("$eq", v)))
			shown = append(shown, fmt.Sprintf("%s: %s", k.Field, embeddedCrudShow(v)))
		}

		if index.Name != "_id_" && id != nil {
			filter.Set("_id", must.NotFail(types.NewDocument("$ne", id)))
		}

		if index.EmbeddedCollation != "" {
			if col, err := embeddedcrud.ParseCollation(index.EmbeddedCollation); err == nil {
				if wrapped, err := common.EmbeddedCrudCollationFilter(filter, embeddedCrudCollationDoc(col)); err == nil {
					filter = wrapped
				}
			}
		}

		if !embeddedCrudExists(ctx, c, filter) {
			continue
		}

		errDoc.Set("errmsg", fmt.Sprintf(
			"E11000 duplicate key error collection: %s.%s index: %s dup key: { %s }",
			db, coll, index.Name, strings.Join(shown, ", "),
		))
		errDoc.Set("keyPattern", pattern)
		errDoc.Set("keyValue", value)

		return
	}
}

// embeddedCrudExists tells whether a document of c matches filter.
func embeddedCrudExists(ctx context.Context, c backends.Collection, filter *types.Document) bool {
	res, err := c.Query(ctx, &backends.QueryParams{Filter: filter}) // a superset (the pushdown's), filtered below
	if err != nil {
		return false
	}

	closer := iterator.NewMultiCloser(res.Iter)
	defer closer.Close()

	iter := common.FilterIterator(res.Iter, closer, filter)

	_, _, err = iter.Next()

	return err == nil
}

// embeddedCrudShow shows a key value in an error message, roughly as MongoDB does.
func embeddedCrudShow(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case types.NullType:
		return "null"
	default:
		return fmt.Sprintf("%v", v)
	}
}

func embeddedCrudIsID(index backends.IndexInfo) int {
	if index.Name == "_id_" {
		return 1
	}

	return 0
}

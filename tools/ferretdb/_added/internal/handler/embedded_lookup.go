// ferretdb-embedded: the `$lookup` aggregation stage in its equality form (FerretDB 1.24 has none), so a document
// and the documents it refers to are read in one command, as on MongoDB:
//
//	{$lookup: {from: <collection of this database>, localField: <path>, foreignField: <path>, as: <field>}}
//	{$lookup: {from: ..., localField: ..., foreignField: ..., pipeline: [<stages>], as: ...}}
//	{$lookup: {from: ..., pipeline: [<stages>], as: ...}}
//
// Each input document gets, in the field `as` (replaced if present), the array of the documents of `from` whose
// foreignField equals the document's localField value, with MongoDB's equality: a missing or null local value
// matches the documents whose foreignField is null or missing, and a foreignField holding an array matches when
// one of its elements is equal. The documents come in `from`'s natural order; a `from` that does not exist gives
// empty arrays. Each lookup is one query of `from` with the filter {foreignField: {$eq: value}}, which the pushdown
// (pushdown.patch) hands to SQLite and its indexes; FerretDB's own filter then keeps exactly the matching documents.
// A `pipeline` (MongoDB 5.0's concise form) then runs over each document's matches, as MongoDB runs it after the
// equality match: a `$project` there reads only the fields the reader needs. Without localField and foreignField,
// every document of `from` goes through the pipeline, the same array for each input document.
//
// What is not implemented answers NotImplemented (238), never a different result: `let`, a dotted `as`, a local
// value that is an array or sits below an array (MongoDB then matches each element), and in the pipeline the stages
// FerretDB lacks and those that read more than documents ($collStats).
//
// FERRETDB_EMBEDDED_LOOKUP=off leaves $lookup to FerretDB's own stages (NotImplemented), and buildInfo without
// `embeddedLookup`, as FerretDB 1.24 itself.
package handler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations/stages"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/handler/handlerparams"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedLookupOff is true when FERRETDB_EMBEDDED_LOOKUP=off: no $lookup, as in FerretDB 1.24 itself.
var embeddedLookupOff = embedded.LookupOff

// embeddedLookup: buildInfo says `embeddedLookup: true` while the stage is on; the service's read of a project with
// its teacher needs it.
func init() {
	embeddedMarker(func(doc *types.Document) {
		if !embeddedLookupOff {
			doc.Set("embeddedLookup", true)
		}
	})
}

// embeddedLookup is the `$lookup` stage of one pipeline.
type embeddedLookup struct {
	db           backends.Database
	from         string
	localField   []string
	foreignField string
	as           string

	// pipeline is the stages run over each document's matches (none without `pipeline`); stages, their documents.
	pipeline []aggregations.Stage
	stages   []*types.Document
}

// embeddedLookupError is a $lookup error as MongoDB words it.
func embeddedLookupError(code handlererrors.ErrorCode, format string, args ...any) error {
	return handlererrors.NewCommandErrorMsgWithArgument(code, fmt.Sprintf(format, args...), "$lookup (stage)")
}

// embeddedNewLookup validates a $lookup stage document; db is the database of the aggregated collection.
func embeddedNewLookup(stage *types.Document, db backends.Database) (aggregations.Stage, error) {
	spec, ok := must.NotFail(stage.Get("$lookup")).(*types.Document)
	if !ok {
		return nil, embeddedLookupError(
			handlererrors.ErrFailedToParse,
			"the $lookup specification must be an Object, but found type: %s",
			handlerparams.AliasFromType(must.NotFail(stage.Get("$lookup"))),
		)
	}

	strs := map[string]string{}

	var pipeline *types.Array

	for _, key := range spec.Keys() {
		v := must.NotFail(spec.Get(key))

		switch key {
		case "from", "localField", "foreignField", "as":
			s, isString := v.(string)
			if !isString {
				return nil, embeddedLookupError(
					handlererrors.ErrFailedToParse,
					"$lookup argument '%s: %s' must be a string, is type %s",
					key, types.FormatAnyValue(v), handlerparams.AliasFromType(v),
				)
			}

			strs[key] = s
		case "pipeline":
			var isArray bool
			if pipeline, isArray = v.(*types.Array); !isArray {
				return nil, embeddedLookupError(
					handlererrors.ErrFailedToParse,
					"$lookup argument 'pipeline' must be an array, is type %s", handlerparams.AliasFromType(v),
				)
			}
		case "let":
			return nil, embeddedLookupError(
				handlererrors.ErrNotImplemented,
				"$lookup with 'let' is not implemented in this FerretDB; use localField and foreignField",
			)
		default:
			return nil, embeddedLookupError(handlererrors.ErrFailedToParse, "unknown argument to $lookup: %s", key)
		}
	}

	as, hasAs := strs["as"]
	if !hasAs {
		return nil, embeddedLookupError(handlererrors.ErrFailedToParse, "must specify 'as' field for a $lookup")
	}

	from, hasFrom := strs["from"]
	if !hasFrom {
		return nil, embeddedLookupError(handlererrors.ErrFailedToParse, "must specify 'from' field for a $lookup")
	}

	localField, hasLocal := strs["localField"]
	foreignField, hasForeign := strs["foreignField"]

	switch {
	case hasLocal != hasForeign:
		return nil, embeddedLookupError(
			handlererrors.ErrFailedToParse,
			"$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
		)
	case !hasLocal && pipeline == nil:
		return nil, embeddedLookupError(
			handlererrors.ErrFailedToParse,
			"$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
		)
	}

	paths := []string{as}
	if hasLocal {
		paths = append(paths, localField, foreignField)
	}

	for _, path := range paths {
		if err := embeddedLookupCheckPath(path); err != nil {
			return nil, err
		}
	}

	if strings.ContainsRune(as, '.') {
		return nil, embeddedLookupError(
			handlererrors.ErrNotImplemented, "$lookup with a dotted 'as' (%s) is not implemented in this FerretDB", as,
		)
	}

	if from == "" {
		return nil, embeddedLookupError(handlererrors.ErrInvalidNamespace, "invalid $lookup namespace: empty 'from'")
	}

	l := &embeddedLookup{db: db, from: from, foreignField: foreignField, as: as}
	if hasLocal {
		l.localField = strings.Split(localField, ".")
	}

	if pipeline == nil {
		return l, nil
	}

	for i := range pipeline.Len() {
		d, isDoc := must.NotFail(pipeline.Get(i)).(*types.Document)
		if !isDoc {
			return nil, embeddedLookupError(
				handlererrors.ErrTypeMismatch, "Each element of the 'pipeline' array must be an object",
			)
		}

		var s aggregations.Stage

		var err error

		switch name := d.Command(); {
		case name == "$lookup" && d.Len() == 1:
			s, err = embeddedNewLookup(d, db)
		case name == "$collStats":
			err = embeddedLookupError(
				handlererrors.ErrNotImplemented, "$lookup's pipeline with %s is not implemented in this FerretDB", name,
			)
		default:
			s, err = stages.NewStage(d)
		}

		if err != nil {
			return nil, err
		}

		l.pipeline = append(l.pipeline, s)
		l.stages = append(l.stages, d)
	}

	return l, nil
}

// embeddedLookupCheckPath refuses what MongoDB refuses as a field path: empty, an empty part, or a leading '$'.
func embeddedLookupCheckPath(path string) error {
	if path == "" || strings.HasPrefix(path, "$") {
		return embeddedLookupError(handlererrors.ErrFailedToParse, "$lookup: '%s' is not a valid field path", path)
	}

	for _, part := range strings.Split(path, ".") {
		if part == "" {
			return embeddedLookupError(
				handlererrors.ErrPathContainsEmptyElement, "FieldPath field names may not be empty strings.",
			)
		}
	}

	return nil
}

// localValue is the document's value at localField: types.Null when it is missing or null; an error when it is an
// array or sits below one.
func (l *embeddedLookup) localValue(doc *types.Document) (any, error) {
	var v any = doc

	for _, part := range l.localField {
		switch cur := v.(type) {
		case *types.Document:
			next, err := cur.Get(part)
			if err != nil {
				return types.Null, nil
			}

			v = next
		case *types.Array:
			return nil, embeddedLookupArrayError(l)
		default:
			return types.Null, nil
		}
	}

	if _, isArray := v.(*types.Array); isArray {
		return nil, embeddedLookupArrayError(l)
	}

	return v, nil
}

func embeddedLookupArrayError(l *embeddedLookup) error {
	return embeddedLookupError(
		handlererrors.ErrNotImplemented,
		"$lookup of a localField (%s) holding an array is not implemented in this FerretDB",
		strings.Join(l.localField, "."),
	)
}

// matches reads the documents of `from` whose foreignField equals value.
// Without localField (a pipeline alone) every document of `from` matches.
func (l *embeddedLookup) matches(ctx context.Context, c backends.Collection, value any) (*types.Array, error) {
	filter := new(types.Document)

	if l.localField != nil {
		filter = must.NotFail(types.NewDocument(l.foreignField, must.NotFail(types.NewDocument("$eq", value))))

		// A plain {foreignField: value} is the same filter for these values, and the form the pushdown hands to SQLite.
		switch value.(type) {
		case *types.Document, *types.Array, types.Regex:
		default:
			filter = must.NotFail(types.NewDocument(l.foreignField, value))
		}
	}

	res, err := c.Query(ctx, &backends.QueryParams{Filter: filter})
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	defer res.Iter.Close()

	out := types.MakeArray(1)

	for {
		_, foreign, err := res.Iter.Next()
		if errors.Is(err, iterator.ErrIteratorDone) {
			return out, nil
		}

		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		// The pushdown may have applied the filter partly or not at all: FerretDB's filter decides.
		ok, err := common.FilterDocument(foreign, filter)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if ok {
			out.Append(foreign)
		}
	}
}

// lookedUp is what the stage puts into a document whose local value is value: its matches, through the pipeline.
func (l *embeddedLookup) lookedUp(ctx context.Context, c backends.Collection, value any) (*types.Array, error) {
	found, err := l.matches(ctx, c, value)
	if err != nil || len(l.pipeline) == 0 {
		return found, err
	}

	return l.run(ctx, found)
}

// run passes documents through the pipeline's stages, as an aggregation passes its collection's documents.
func (l *embeddedLookup) run(ctx context.Context, found *types.Array) (*types.Array, error) {
	docs := make([]*types.Document, found.Len())
	for i := range docs {
		docs[i] = must.NotFail(found.Get(i)).(*types.Document)
	}

	closer := iterator.NewMultiCloser()
	defer closer.Close()

	iter := iterator.Values(iterator.ForSlice(docs))
	closer.Add(iter)

	var err error

	for _, s := range l.pipeline {
		if iter, err = s.Process(ctx, iter, closer); err != nil {
			return nil, err
		}
	}

	out, err := iterator.ConsumeValues(iter)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	arr := types.MakeArray(len(out))
	for _, doc := range out {
		arr.Append(doc)
	}

	return arr, nil
}

// Process implements aggregations.Stage.
func (l *embeddedLookup) Process(ctx context.Context, iter types.DocumentsIterator, closer *iterator.MultiCloser) (types.DocumentsIterator, error) { //nolint:lll // as the other stages
	docs, err := iterator.ConsumeValues(iter)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	c, err := l.db.Collection(l.from)
	if err != nil {
		if backends.ErrorCodeIs(err, backends.ErrorCodeCollectionNameIsInvalid) {
			return nil, embeddedLookupError(handlererrors.ErrInvalidNamespace, "Invalid collection name: %s", l.from)
		}

		return nil, lazyerrors.Error(err)
	}

	// Without localField, every document gets the same array: read and run through the pipeline once.
	var all *types.Array

	for _, doc := range docs {
		if l.localField == nil {
			if all == nil {
				if all, err = l.lookedUp(ctx, c, nil); err != nil {
					return nil, err
				}
			}

			doc.Set(l.as, all.DeepCopy())

			continue
		}

		value, err := l.localValue(doc)
		if err != nil {
			return nil, err
		}

		found, err := l.lookedUp(ctx, c, value)
		if err != nil {
			return nil, err
		}

		doc.Set(l.as, found)
	}

	out := iterator.Values(iterator.ForSlice(docs))
	closer.Add(out)

	return out, nil
}

// check interfaces
var (
	_ aggregations.Stage = (*embeddedLookup)(nil)
)

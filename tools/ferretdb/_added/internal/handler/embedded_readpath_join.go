// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"errors"
	"strings"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedJoin is an aggregation of the form [$match, $sort (optional), $skip and $limit stages, $project
// (optional), $lookup]: a page of documents and what they refer to, as the service reads a project with its teacher,
// and a page of projects with their teachers.
type embeddedJoin struct {
	filter *types.Document
	page   *backends.QueryPushdown
	keep   func(name string) bool
	lookup *embeddedLookup
}

// embeddedJoinOf returns the join an aggregation's stages form, or nil when they form another pipeline. stages are
// the pipeline's documents, built the stages already validated.
func embeddedJoinOf(stages []any, built []aggregations.Stage) *embeddedJoin {
	if len(stages) < 3 || len(built) != len(stages) {
		return nil
	}

	filter, ok := stageValue(stages[0], "$match").(*types.Document)
	if !ok {
		return nil
	}

	// Dotted keys are filtered in Go by FerretDB's own path (no nested pushdown): not proved exact here.
	for _, key := range filter.Keys() {
		if strings.ContainsRune(key, '.') {
			return nil
		}
	}

	page, n := embeddedPagePushdown(stages)
	if page == nil || page.Limit <= 0 || len(stages)-n < 1 || len(stages)-n > 2 {
		return nil
	}

	lookup, ok := built[len(built)-1].(*embeddedLookup)
	if !ok {
		return nil
	}

	j := &embeddedJoin{filter: filter, page: page, lookup: lookup}

	if len(stages)-n == 2 {
		projection, isDoc := stageValue(stages[n], "$project").(*types.Document)
		if !isDoc {
			return nil
		}

		var keepsID bool
		if j.keep, keepsID, ok = embeddedInclusion(projection); !ok || !keepsID {
			return nil
		}
	}

	return j
}

// embeddedJoinReply answers an aggregation of the form [$match, $sort (optional), $skip and $limit stages, $project
// (an inclusion of top-level fields keeping _id, optional), $lookup] from storage when the backend proves the
// documents' read exact (pushdown.patch): the documents and each one's matches go from SQLite's JSON to the reply's
// BSON, the looked-up array added as the last field (or in place of a field of that name), as FerretDB's own stages
// give them; a local value whose matches the backend cannot read exactly (null or missing among them, for a project
// without a teacher) has them read as the $lookup stage reads them. It returns nil when the pipeline has another
// form, when its result may not fit in the first batch, when the documents' read is not exact, or when the stage
// refuses a local value (an array): FerretDB's own path then answers, reading again.
func embeddedJoinReply(ctx context.Context, db backends.Database, c backends.Collection, cName string, stages []any, built []aggregations.Stage, batchSize int64, ns string) (*wire.OpMsg, error) { //nolint:lll // for readability
	if embeddedReadpathOff {
		return nil, nil
	}

	j := embeddedJoinOf(stages, built)
	if j == nil || j.page.Limit > batchSize {
		return nil, nil
	}

	// FerretDB's own path reads a capped collection in its insertion order: left to it.
	list, err := db.ListCollections(ctx, &backends.ListCollectionsParams{Name: cName})
	if err != nil || len(list.Collections) == 0 || list.Collections[0].Capped() {
		return nil, nil //nolint:nilerr // FerretDB's own path reports it
	}

	docs, ok, err := embeddedExactRaw(ctx, c, &backends.QueryParams{
		Filter:   j.filter,
		Pushdown: j.page,
	}, j.keep)
	if err != nil || !ok {
		return nil, err
	}

	from, err := db.Collection(j.lookup.from)
	if err != nil {
		return nil, nil //nolint:nilerr // FerretDB's own path reports it
	}

	firstBatch := wirebson.MakeArray(len(docs))

	// The matches of each local value already looked up (a page's projects share teachers), for the values that can
	// be a map's key.
	looked := make(map[any][]wirebson.RawDocument)

	for _, raw := range docs {
		local, err := bson.ToDocument(raw)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		value, err := j.lookup.localValue(local)
		if err != nil {
			return nil, nil //nolint:nilerr // FerretDB's own path refuses it
		}

		var key any

		switch value.(type) {
		case int32, int64, float64, string, bool:
			key = value
		}

		matches, seen := looked[key]
		if !seen || key == nil {
			if matches, err = embeddedJoinMatches(ctx, j.lookup, from, value); err != nil {
				return nil, err
			}

			if key != nil {
				looked[key] = matches
			}
		}

		found := wirebson.MakeArray(len(matches))
		for _, m := range matches {
			if err = found.Add(m); err != nil {
				return nil, lazyerrors.Error(err)
			}
		}

		doc, err := raw.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if doc.Get(j.lookup.as) != nil {
			err = doc.Replace(j.lookup.as, found)
		} else {
			err = doc.Add(j.lookup.as, found)
		}

		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if err = firstBatch.Add(doc); err != nil {
			return nil, lazyerrors.Error(err)
		}
	}

	reply, err := wirebson.NewDocument(
		"cursor", wirebson.MustDocument("firstBatch", firstBatch, "id", int64(0), "ns", ns),
		"ok", float64(1),
	)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return wire.NewOpMsg(reply)
}

// embeddedJoinMatches returns, as BSON, the documents of `from` a local value matches: read from storage as BSON
// when the backend proves the equality exact, else as the $lookup stage reads them (a null or missing value, a
// document, a regular expression, or a field the pushdown does not answer exactly), converted.
func embeddedJoinMatches(ctx context.Context, l *embeddedLookup, from backends.Collection, value any) ([]wirebson.RawDocument, error) { //nolint:lll // for readability
	switch value.(type) {
	case types.NullType, *types.Document, *types.Array, types.Regex:
	default:
		matches, ok, err := embeddedExactRaw(ctx, from, &backends.QueryParams{
			Filter:   must.NotFail(types.NewDocument(l.foreignField, value)),
			Pushdown: &backends.QueryPushdown{},
		}, nil)
		if err != nil || ok {
			return matches, err
		}
	}

	found, err := l.matches(ctx, from, value)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	matches := make([]wirebson.RawDocument, 0, found.Len())

	for i := range found.Len() {
		doc, err := bson.FromDocument(must.NotFail(found.Get(i)).(*types.Document))
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		raw, err := doc.Encode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		matches = append(matches, raw)
	}

	return matches, nil
}

// embeddedExactRaw runs a query and returns its documents as BSON (only the top-level fields keep keeps, when not
// nil), with ok true, when the backend proved the result exact; ok false (and nothing read) otherwise.
func embeddedExactRaw(ctx context.Context, c backends.Collection, qp *backends.QueryParams, keep func(string) bool) ([]wirebson.RawDocument, bool, error) { //nolint:lll // for readability
	res, err := c.Query(ctx, qp)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	defer res.Iter.Close()

	bi, isBSON := res.Iter.(backends.BSONIterator)
	if !res.PushedDown || !isBSON {
		return nil, false, nil
	}

	var buf []byte
	var ends []int

	for {
		if buf, err = bi.AppendNextBSON(buf, keep); err != nil {
			if errors.Is(err, iterator.ErrIteratorDone) {
				break
			}

			return nil, false, lazyerrors.Error(err)
		}

		ends = append(ends, len(buf))
	}

	docs := make([]wirebson.RawDocument, len(ends))
	start := 0

	for i, end := range ends {
		docs[i] = wirebson.RawDocument(buf[start:end])
		start = end
	}

	return docs, true, nil
}

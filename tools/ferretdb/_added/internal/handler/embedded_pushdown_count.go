// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"math"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedCountPipeline answers a counting pipeline — a $match, any $skip and $limit stages, then
// {$group: {_id: <constant>, <field>: {$sum: 1}}}, which is what drivers send for countDocuments — with the
// backend's exact count, as the $group stage would: one document {_id: <constant>, <field>: <count>}, none for 0.
// It returns false when the pipeline has another shape or the backend cannot count it exactly.
func embeddedCountPipeline(ctx context.Context, c backends.Collection, stages []any) (types.DocumentsIterator, bool, error) { //nolint:lll // for readability
	if len(stages) < 2 {
		return nil, false, nil
	}

	match, ok := stageValue(stages[0], "$match").(*types.Document)
	if !ok {
		return nil, false, nil
	}

	skip, limit, cut, ok := embeddedCutOf(stages[1 : len(stages)-1])
	if !ok || cut != len(stages)-2 || limit == 0 {
		return nil, false, nil
	}

	group, ok := stageValue(stages[len(stages)-1], "$group").(*types.Document)
	if !ok || group.Len() != 2 || group.Keys()[0] != "_id" {
		return nil, false, nil
	}

	id := must.NotFail(group.Get("_id"))
	switch id := id.(type) {
	case int32, int64, float64, bool, types.NullType:
	case string:
		if strings.HasPrefix(id, "$") {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}

	field := group.Keys()[1]
	acc, ok := must.NotFail(group.Get(field)).(*types.Document)

	if !ok || acc.Len() != 1 || strings.HasPrefix(field, "$") || strings.Contains(field, ".") {
		return nil, false, nil
	}

	if one, ok := must.NotFail(acc.Get(acc.Keys()[0])).(int32); !ok || acc.Keys()[0] != "$sum" || one != 1 {
		return nil, false, nil
	}

	pd := &backends.QueryPushdown{Skip: skip}
	if limit > 0 {
		pd.Limit = limit
	}

	n, exact, err := backends.CountExact(ctx, c, &backends.QueryParams{Filter: match, Pushdown: pd})
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	if !exact {
		return nil, false, nil
	}

	var docs []*types.Document

	if n > 0 {
		var sum any = n
		if n <= math.MaxInt32 {
			sum = int32(n)
		}

		docs = append(docs, must.NotFail(types.NewDocument("_id", id, field, sum)))
	}

	return iterator.Values(iterator.ForSlice(docs)), true, nil
}

// embeddedCutOf folds the $skip and $limit stages that begin stages into one skip and one limit (-1: none), as they
// cut the documents in their order, and returns how many stages they are; false when one holds a value the stage
// refuses (not a whole number of int32 or int64 type, a negative skip, a limit below 1).
func embeddedCutOf(stages []any) (skip, limit int64, n int, ok bool) {
	limit = -1

	for ; n < len(stages); n++ {
		value := stageValue(stages[n], "$skip")
		isSkip := value != nil

		if !isSkip {
			if value = stageValue(stages[n], "$limit"); value == nil {
				break
			}
		}

		var v int64

		switch value := value.(type) {
		case int32:
			v = int64(value)
		case int64:
			v = value
		default:
			return 0, 0, 0, false
		}

		if isSkip {
			if v < 0 {
				return 0, 0, 0, false
			}

			skip += v
			if limit >= 0 {
				limit = max(0, limit-v)
			}

			continue
		}

		if v <= 0 {
			return 0, 0, 0, false
		}

		if limit < 0 || v < limit {
			limit = v
		}
	}

	return skip, limit, n, true
}

// stageValue returns the value of a pipeline stage {name: value}, or nil if the stage is another.
func stageValue(stage any, name string) any {
	d, ok := stage.(*types.Document)
	if !ok || d.Len() != 1 || d.Keys()[0] != name {
		return nil
	}

	return must.NotFail(d.Get(name))
}

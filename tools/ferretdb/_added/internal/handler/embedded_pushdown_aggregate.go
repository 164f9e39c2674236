// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedPagePushdown returns what an aggregation's first stages ask of its documents beyond their filter, for the
// backend (QueryPushdown), and how many stages that is: an optional $match, then a $sort (optional), then $skip and
// $limit stages (in any order and number), ending at the first other stage. It returns nil when the pipeline begins
// otherwise, when there is neither a $sort nor a $limit, when a value is one the stages refuse, or when the stages
// leave nothing (the stages then answer it).
func embeddedPagePushdown(stages []any) (*backends.QueryPushdown, int) {
	i := 0
	if i < len(stages) && stageValue(stages[i], "$match") != nil {
		i++
	}

	pd := new(backends.QueryPushdown)

	if i < len(stages) {
		if sortDoc, ok := stageValue(stages[i], "$sort").(*types.Document); ok {
			sort, err := common.ValidateSortDocument(sortDoc)
			if err != nil || sort.Len() == 0 || sort.Has("$natural") {
				return nil, 0
			}

			pd.Sort = sort
			i++
		}
	}

	skip, limit, n, ok := embeddedCutOf(stages[i:])
	if !ok {
		return nil, 0
	}

	pd.Skip = skip
	i += n

	if limit == 0 || (pd.Sort == nil && limit < 0) {
		return nil, 0
	}

	if limit > 0 {
		pd.Limit = limit
	}

	return pd, i
}

// embeddedAggregatePushdown returns the pushdown of an aggregation's first stages (embeddedPagePushdown) and their
// number, when filter, the backend's filter, is the whole of its first $match (no dotted key was left out of it) or
// nil without one: the backend gets a page only with its complete filter.
func embeddedAggregatePushdown(stages []any, filter *types.Document) (*backends.QueryPushdown, int) {
	pd, n := embeddedPagePushdown(stages)
	if pd == nil {
		return nil, 0
	}

	if match, _ := stageValue(stages[0], "$match").(*types.Document); filter.Len() != match.Len() {
		return nil, 0
	}

	return pd, n
}

// embeddedProcessStagesDocuments is processStagesDocuments with the page an aggregation's first stages cut
// (embeddedPagePushdown) passed to the backend with the complete $match: when the backend applies it exactly, those
// stages are not run again, so a page of a large collection reads the page instead of every document; otherwise the
// backend returns a superset in natural order and every stage runs, as FerretDB's own path does. pushdown is false
// when the handler's pushdown is disabled, and for a capped collection.
func embeddedProcessStagesDocuments(ctx context.Context, closer *iterator.MultiCloser, p *stagesDocumentsParams, stages []any, pushdown bool) (types.DocumentsIterator, error) { //nolint:lll // for readability
	if !pushdown || p.qp.Sort != nil || p.qp.Pushdown != nil || len(p.stages) != len(stages) {
		return processStagesDocuments(ctx, closer, p)
	}

	pd, n := embeddedAggregatePushdown(stages, p.qp.Filter)
	if pd == nil {
		return processStagesDocuments(ctx, closer, p)
	}

	qp := *p.qp
	qp.Pushdown = pd

	queryRes, err := p.c.Query(ctx, &qp)
	if err != nil {
		closer.Close()
		return nil, lazyerrors.Error(err)
	}

	closer.Add(queryRes.Iter)

	iter := queryRes.Iter

	built := p.stages
	if queryRes.PushedDown {
		built = built[n:]
	}

	for _, s := range built {
		if iter, err = s.Process(ctx, iter, closer); err != nil {
			return nil, err
		}
	}

	return iter, nil
}

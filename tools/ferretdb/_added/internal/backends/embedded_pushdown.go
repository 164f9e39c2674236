// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package backends

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// QueryPushdown is what a find asks beyond its filter: its sort, skip and limit (0: none). The handler passes it
// only with the find's complete filter. A backend may apply it only where the result is then exactly the page the
// handler would have cut (it says so in QueryResult.PushedDown); the handler filters, sorts and limits whatever the
// backend returns again, so any other result must be a superset in the collection's natural order.
type QueryPushdown struct {
	Sort  *types.Document
	Skip  int64
	Limit int64
}

// ExactCounter is implemented by backend collections that can count the documents matching a filter (with
// QueryParams.Pushdown's skip and limit) without returning them.
type ExactCounter interface {
	// CountExact returns the count and true, or false when it cannot count exactly (the caller then counts the
	// documents Query returns).
	CountExact(ctx context.Context, params *QueryParams) (int64, bool, error)
}

// CountExact implements ExactCounter for wrapped collections that do.
func (cc *collectionContract) CountExact(ctx context.Context, params *QueryParams) (int64, bool, error) {
	if c, ok := cc.c.(ExactCounter); ok {
		n, exact, err := c.CountExact(ctx, params)
		checkError(err)

		return n, exact, err
	}

	return 0, false, nil
}

// CountExact counts with c if it can count exactly.
func CountExact(ctx context.Context, c Collection, params *QueryParams) (int64, bool, error) {
	if counter, ok := c.(ExactCounter); ok {
		return counter.CountExact(ctx, params)
	}

	return 0, false, nil
}

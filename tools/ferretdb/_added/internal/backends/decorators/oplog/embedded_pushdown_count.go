// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package oplog

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
)

// CountExact implements backends.ExactCounter by asking the wrapped collection (counting writes nothing).
func (c *collection) CountExact(ctx context.Context, params *backends.QueryParams) (int64, bool, error) {
	return backends.CountExact(ctx, c.origC, params)
}

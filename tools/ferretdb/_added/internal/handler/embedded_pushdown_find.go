// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"strings"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
)

// embeddedFindIterParams are the find's parameters for FerretDB's own iterators over a query result: all of them,
// unless the backend applied the filter, sort, skip and limit exactly (pushedDown; pushdown.patch). Then the
// iterators neither skip nor sort again, and filter again only for a positional projection, which reads the filter.
func embeddedFindIterParams(params *common.FindParams, pushedDown bool) *common.FindParams {
	if !pushedDown {
		return params
	}

	p := *params
	p.Skip = 0
	p.Sort = nil

	if !embeddedPositional(p.Projection) {
		p.Filter = nil
	}

	return &p
}

// embeddedPositional returns whether a projection has a positional part (a field name holding `$`), which reads the
// find's filter.
func embeddedPositional(projection *types.Document) bool {
	for _, name := range projection.Keys() {
		if strings.Contains(name, "$") {
			return true
		}
	}

	return false
}

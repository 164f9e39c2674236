// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// MongoDB 7.1 and later take a `hint` in distinct (an index name or key pattern); FerretDB refuses the field. It
// is dropped before FerretDB reads the command (crud concern): FerretDB's distinct reads the collection as it
// chooses, with the same answer (a hint changes how MongoDB reads, not what it answers). An index the hint names
// is not checked.
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudDistinctHint)
}

func embeddedCrudDistinctHint(_ context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) { //nolint:lll // for readability
	if call.command != "distinct" || !doc.Has("hint") {
		return false, nil, nil
	}

	doc.Remove("hint")

	return true, nil, nil
}

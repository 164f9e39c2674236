// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// A comment may be any BSON value on MongoDB 4.4 and later (it only shows in logs and the profiler); FerretDB takes
// only a string. A comment of another type is dropped before FerretDB reads the command (crud concern).
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudComment)
}

func embeddedCrudComment(_ context.Context, _ *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) {
	v, err := doc.Get("comment")
	if err != nil {
		return false, nil, nil
	}

	if _, ok := v.(string); ok {
		return false, nil, nil
	}

	doc.Remove("comment")

	return true, nil, nil
}

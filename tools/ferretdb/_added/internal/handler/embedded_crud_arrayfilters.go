// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// arrayFilters (common/embedded_crud_arrayfilters.go applies them): renamed embeddedArrayFilters in update's
// statements and in findAndModify, the name under which the patched parameters read them (crud concern).
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudArrayFiltersRename)
}

func embeddedCrudArrayFiltersRename(_ context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) { //nolint:lll // for readability
	rename := func(d *types.Document) bool {
		v, err := d.Get("arrayFilters")
		if err != nil {
			return false
		}

		d.Remove("arrayFilters")
		d.Set("embeddedArrayFilters", v)

		return true
	}

	switch call.command {
	case "findAndModify", "findandmodify":
		return rename(doc), nil, nil
	case "update":
		v, _ := doc.Get("updates")

		arr, ok := v.(*types.Array)
		if !ok {
			return false, nil, nil
		}

		var changed bool

		for i := range arr.Len() {
			if st, ok := must.NotFail(arr.Get(i)).(*types.Document); ok && rename(st) {
				changed = true
			}
		}

		return changed, nil, nil
	}

	return false, nil, nil
}

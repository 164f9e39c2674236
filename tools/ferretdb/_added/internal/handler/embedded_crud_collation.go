// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"fmt"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Collation (common/embedded_crud_collation.go compares by it): a command's `collation` (a statement's, in delete
// and update) is taken out, and each of its filters is wrapped with it, its sort ended with it; distinct keeps one
// value of those equal under it. In aggregate, the stages that would compare strings other than $match are refused
// with a collation (NotImplemented). FerretDB refused every collation (crud concern).
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudCollation)
}

// embeddedCrudCollationStages are the aggregation stages that run with a collation.
var embeddedCrudCollationStages = map[string]bool{
	"$match": true, "$project": true, "$set": true, "$addFields": true, "$unset": true, "$skip": true,
	"$limit": true, "$count": true, "$unwind": true, "$replaceRoot": true, "$replaceWith": true, "$out": true,
	"$merge": true, "$documents": true,
}

func embeddedCrudCollation(_ context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) { //nolint:lll // for readability
	// takeSpec takes d's collation out: the spec, or nil for none or binary comparison
	takeSpec := func(d *types.Document) (*types.Document, bool, error) {
		v, err := d.Get("collation")
		if err != nil {
			return nil, false, nil
		}

		d.Remove("collation")

		spec, ok := v.(*types.Document)
		if !ok {
			return nil, true, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrTypeMismatch,
				fmt.Sprintf("BSON field '%s.collation' is the wrong type '%s', expected type 'object'", call.command,
					types.FormatAnyValue(v)),
				"collation",
			)
		}

		pool, err := common.EmbeddedCrudCollator(spec)
		if err != nil || pool == nil {
			return nil, true, err
		}

		return spec, true, nil
	}

	wrap := func(d *types.Document, key string, spec *types.Document) error {
		var filter *types.Document

		if v, err := d.Get(key); err == nil {
			filter, _ = v.(*types.Document)
		}

		wrapped, err := common.EmbeddedCrudCollationFilter(filter, spec)
		if err != nil {
			return err
		}

		d.Set(key, wrapped)

		return nil
	}

	endSort := func(d *types.Document, spec *types.Document) {
		v, err := d.Get("sort")
		if err != nil {
			return
		}

		if s, ok := v.(*types.Document); ok && s.Len() > 0 {
			s = s.DeepCopy()
			s.Set(common.EmbeddedCrudCollationKey, spec)
			d.Set("sort", s)
		}
	}

	switch call.command {
	case "find", "count", "distinct", "findAndModify", "findandmodify":
		spec, changed, err := takeSpec(doc)
		if err != nil || spec == nil {
			return changed, nil, err
		}

		key := "query"
		if call.command == "find" {
			key = "filter"
		}

		if err = wrap(doc, key, spec); err != nil {
			return false, nil, err
		}

		endSort(doc, spec)

		if call.command != "distinct" {
			return true, nil, nil
		}

		after := func(reply *types.Document) error {
			values, ok := must.NotFail(reply.Get("values")).(*types.Array)
			if !ok {
				return nil
			}

			values, err := common.EmbeddedCrudCollationDistinct(values, spec)
			if err != nil {
				return err
			}

			reply.Set("values", values)

			return nil
		}

		return true, after, nil

	case "delete", "update":
		list := "deletes"
		if call.command == "update" {
			list = "updates"
		}

		lv, _ := doc.Get(list)

		arr, ok := lv.(*types.Array)
		if !ok {
			return false, nil, nil
		}

		var changed bool

		for i := range arr.Len() {
			st, ok := must.NotFail(arr.Get(i)).(*types.Document)
			if !ok {
				continue
			}

			spec, c, err := takeSpec(st)
			if err != nil {
				return false, nil, err
			}

			changed = changed || c

			if spec != nil {
				if err = wrap(st, "q", spec); err != nil {
					return false, nil, err
				}
			}
		}

		return changed, nil, nil

	case "aggregate":
		spec, changed, err := takeSpec(doc)
		if err != nil || spec == nil {
			return changed, nil, err
		}

		pv, _ := doc.Get("pipeline")

		arr, ok := pv.(*types.Array)
		if !ok {
			return true, nil, nil
		}

		for i := range arr.Len() {
			stage, ok := must.NotFail(arr.Get(i)).(*types.Document)
			if !ok || stage.Len() != 1 {
				continue
			}

			name := stage.Keys()[0]

			if name == "$group" && embeddedCrudConstantGroup(stage) {
				continue
			}

			if !embeddedCrudCollationStages[name] {
				return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrNotImplemented,
					fmt.Sprintf("the embedded database does not implement the stage %s with a collation", name),
					"collation",
				)
			}

			if name == "$match" {
				if err = wrap(stage, "$match", spec); err != nil {
					return false, nil, err
				}
			}
		}

		return true, nil, nil
	}

	return false, nil, nil
}

// embeddedCrudConstantGroup tells whether a $group stage groups by a constant (countDocuments' {_id: 1}).
func embeddedCrudConstantGroup(stage *types.Document) bool {
	g, ok := must.NotFail(stage.Get("$group")).(*types.Document)
	if !ok {
		return false
	}

	id, _ := g.Get("_id")

	switch id := id.(type) {
	case int32, int64, float64, types.NullType, bool:
		return true
	case string:
		return len(id) == 0 || id[0] != '$'
	default:
		return false
	}
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package stages

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedCrudFerretDBExpr tells whether $match's $expr is FerretDB's own (with CrudOff); otherwise the filter
// evaluates it with the crud concern's expressions (common/embedded_crud_expr.go), which check it as they run.
func embeddedCrudFerretDBExpr() bool {
	return embedded.CrudOff
}

// embeddedCrudProject is a $project stage with computed fields (FerretDB's own knows none of the expressions).
type embeddedCrudProject struct {
	spec *types.Document
}

// embeddedCrudProjectStage is a $project with computed fields, run with common.EmbeddedCrudProject; nil for FerretDB's
// own $project (with CrudOff, or a projection of inclusions and exclusions only).
func embeddedCrudProjectStage(spec *types.Document) aggregations.Stage {
	if embedded.CrudOff {
		return nil
	}

	for _, k := range spec.Keys() {
		switch must.NotFail(spec.Get(k)).(type) {
		case bool, int32, int64, float64:
		default:
			return &embeddedCrudProject{spec: spec}
		}
	}

	return nil
}

// EmbeddedCrudProjectStage is $project run with common.EmbeddedCrudProject whatever its fields (for documents that may
// lack an _id: a database-level aggregate's).
func EmbeddedCrudProjectStage(spec *types.Document) aggregations.Stage {
	return &embeddedCrudProject{spec: spec}
}

// Process implements aggregations.Stage.
func (p *embeddedCrudProject) Process(_ context.Context, iter types.DocumentsIterator, closer *iterator.MultiCloser) (types.DocumentsIterator, error) { //nolint:lll // for readability
	res := &embeddedCrudMapIterator{iter: iter, f: func(doc *types.Document) (*types.Document, error) {
		return common.EmbeddedCrudProject(p.spec, doc)
	}}
	closer.Add(res)

	return res, nil
}

// embeddedCrudMapIterator maps each document of iter through f.
type embeddedCrudMapIterator struct {
	iter types.DocumentsIterator
	f    func(*types.Document) (*types.Document, error)
}

// Next implements iterator.Interface.
func (it *embeddedCrudMapIterator) Next() (struct{}, *types.Document, error) {
	_, doc, err := it.iter.Next()
	if err != nil {
		return struct{}{}, nil, err
	}

	doc, err = it.f(doc)

	return struct{}{}, doc, err
}

// Close implements iterator.Interface.
func (it *embeddedCrudMapIterator) Close() {
	it.iter.Close()
}

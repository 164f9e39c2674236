// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"slices"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// FieldValues appends to dst the values of the named top-level fields of a document written by Marshal, as
// Unmarshal would give them (nil for a field the document does not have): what the merge of an $in's reads compares
// (the sqlite backend's embedded_pushdown_merge.go), for every row it looks at. Through the walk (embedded_walk.go),
// which builds only those fields. Nothing of data is kept.
func FieldValues(dst []any, data []byte, fields []string) ([]any, error) {
	w := walkers.Get().(*walker)
	defer w.release()

	if err := w.run(data, &w.types, func(name string) bool { return slices.Contains(fields, name) }); err != nil {
		return dst, lazyerrors.Error(err)
	}

	for _, f := range fields {
		var v any
		if w.types.doc.Has(f) {
			v, _ = w.types.doc.Get(f)
		}

		dst = append(dst, v)
	}

	return dst, nil
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embeddedcrud"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Collation (crud concern): MongoDB compares strings by a locale's rules when a command gives a collation, in its
// filters and its sort. The handler's hook (handler/embedded_crud_collation.go) wraps each filter of such a command
// in {$embeddedCollation: {collation, filter}} and adds {$embeddedCollation: collation} at the end of its sort; here
// the filter and the sort then compare the collation keys of strings (golang.org/x/text/collate, Unicode's collation
// algorithm with CLDR's locale data), which order and compare strings as the locale does. A wrapped filter is never
// pushed down to SQLite (its binary comparisons would lose documents), so such a query reads the collection.
//
// Known: locale (any BCP 47 tag golang.org/x/text knows; "simple" is binary comparison, as without collation),
// strength 1 (base letters: case and accents ignored), 2 (case ignored), 3 (the default), numericOrdering, and
// normalization (always done). Refused with NotImplemented, naming the option: strength 4 and 5, caseLevel,
// caseFirst other than "off", alternate "shifted", maxVariable, backwards. In a filter, $regex, $expr and $where
// are refused with a collation (MongoDB ignores it for a regex; we would compare keys).

// EmbeddedCrudCollationKey wraps a filter and ends a sort that compares strings by a collation.
const EmbeddedCrudCollationKey = "$embeddedCollation"

// EmbeddedCrudCollator checks a collation spec; nil for binary comparison ("simple").
func EmbeddedCrudCollator(spec *types.Document) (*embeddedcrud.Collation, error) {
	bad := func(msg string) error {
		return handlererrors.NewCommandErrorMsgWithArgument(handlererrors.ErrBadValue, msg, "collation")
	}
	notImplemented := func(option string) error {
		return handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrNotImplemented,
			fmt.Sprintf("the embedded database does not implement the collation option %s", option),
			"collation",
		)
	}

	lv, err := spec.Get("locale")
	if err != nil {
		return nil, bad("Missing expected field \"locale\"")
	}

	locale, ok := lv.(string)
	if !ok {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrTypeMismatch, "BSON field 'locale' is the wrong type, expected type 'string'", "collation",
		)
	}

	c := embeddedcrud.Collation{Locale: locale, Strength: 3}

	for _, k := range spec.Keys() {
		v := must.NotFail(spec.Get(k))

		switch k {
		case "locale", "normalization", "version":
		case "strength":
			n, ok := embeddedCrudWhole(v)
			if !ok || n < 1 || n > 5 {
				return nil, bad(fmt.Sprintf("Field 'strength' must be an integer 1 through 5. Got: %v", v))
			}

			if n > 3 {
				return nil, notImplemented(fmt.Sprintf("strength %d", n))
			}

			c.Strength = int(n)
		case "numericOrdering":
			c.Numeric = v == true
		case "caseLevel":
			if v == true {
				return nil, notImplemented("caseLevel")
			}
		case "caseFirst":
			if v != "off" {
				return nil, notImplemented(fmt.Sprintf("caseFirst %v", v))
			}
		case "alternate":
			if v != "non-ignorable" {
				return nil, notImplemented(fmt.Sprintf("alternate %v", v))
			}
		case "maxVariable":
			return nil, notImplemented("maxVariable")
		case "backwards":
			if v == true {
				return nil, notImplemented("backwards")
			}
		default:
			return nil, bad(fmt.Sprintf("Unknown collation option %s", k))
		}
	}

	if locale == "simple" {
		if spec.Len() > 1 {
			return nil, bad(`If "locale" is set to "simple", then no other fields may be set`)
		}

		return nil, nil
	}

	if _, err = embeddedcrud.ParseCollation(c.String()); err != nil {
		return nil, bad(fmt.Sprintf("Field 'locale' is invalid in: %s", types.FormatAnyValue(spec)))
	}

	return &c, nil
}

// embeddedCrudWhole is v as a whole number.
func embeddedCrudWhole(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		return int64(v), v == float64(int64(v))
	}

	return 0, false
}

// embeddedCrudKeyed is v with every string replaced by its collation key (byte order is the collation's order).
func embeddedCrudKeyed(v any, key func(string) string) any {
	switch v := v.(type) {
	case string:
		return key(v)
	case *types.Document:
		res := types.MakeDocument(v.Len())

		for _, k := range v.Keys() {
			val := must.NotFail(v.Get(k))
			if k == "$type" || k == "$options" {
				res.Set(k, val)
				continue
			}

			res.Set(k, embeddedCrudKeyed(val, key))
		}

		return res
	case *types.Array:
		res := types.MakeArray(v.Len())
		for i := range v.Len() {
			res.Append(embeddedCrudKeyed(must.NotFail(v.Get(i)), key))
		}

		return res
	default:
		return v
	}
}

// EmbeddedCrudCollationFilter wraps a filter for a collation (nil filter: every document).
func EmbeddedCrudCollationFilter(filter, spec *types.Document) (*types.Document, error) {
	if filter == nil {
		filter = types.MakeDocument(0)
	}

	if err := embeddedCrudCollationRefused(filter); err != nil {
		return nil, err
	}

	// Conditions that a collation does not change (top-level equality, or $eq, with a number, ObjectId, boolean or date) are
	// also left outside the wrapper, so that the pushdown can still pre-select by them (the wrapper repeats them).
	res := types.MakeDocument(2)

	for _, k := range filter.Keys() {
		if strings.HasPrefix(k, "$") {
			continue
		}

		v := must.NotFail(filter.Get(k))
		if d, ok := v.(*types.Document); ok && d.Len() == 1 && d.Has("$eq") {
			v = must.NotFail(d.Get("$eq"))
		}

		switch v := v.(type) {
		case int32, int64, float64, bool, types.ObjectID, time.Time:
			res.Set(k, v)
		}
	}

	res.Set(EmbeddedCrudCollationKey, must.NotFail(types.NewDocument("collation", spec, "filter", filter)))

	return res, nil
}

// embeddedCrudCollationRefused refuses what a filter cannot do with a collation here.
func embeddedCrudCollationRefused(v any) error {
	switch v := v.(type) {
	case *types.Document:
		for _, k := range v.Keys() {
			switch k {
			case "$regex", "$expr", "$where":
				return handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrNotImplemented,
					fmt.Sprintf("the embedded database does not implement %s with a collation", k),
					"collation",
				)
			}

			if err := embeddedCrudCollationRefused(must.NotFail(v.Get(k))); err != nil {
				return err
			}
		}
	case *types.Array:
		for i := range v.Len() {
			if err := embeddedCrudCollationRefused(must.NotFail(v.Get(i))); err != nil {
				return err
			}
		}
	case types.Regex:
		return handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrNotImplemented,
			"the embedded database does not implement regular expressions with a collation",
			"collation",
		)
	}

	return nil
}

// embeddedCrudUnwrap is a filter without its collation wrapper, and the collation (nil if none).
func embeddedCrudUnwrap(filter *types.Document) (*types.Document, *types.Document) {
	if filter == nil || !filter.Has(EmbeddedCrudCollationKey) {
		return filter, nil
	}

	w, ok := must.NotFail(filter.Get(EmbeddedCrudCollationKey)).(*types.Document)
	if !ok {
		return filter, nil
	}

	spec, _ := w.Get("collation")
	inner, _ := w.Get("filter")

	s, _ := spec.(*types.Document)
	f, _ := inner.(*types.Document)

	if f == nil {
		f = types.MakeDocument(0)
	}

	return f, s
}

// embeddedCrudCollationFilter matches a wrapped filter (handled: false for any other filter).
func embeddedCrudCollationFilter(doc, filter *types.Document) (matched, handled bool, err error) {
	inner, spec := embeddedCrudUnwrap(filter)
	if spec == nil {
		return false, false, nil
	}

	pool, err := EmbeddedCrudCollator(spec)
	if err != nil {
		return false, true, err
	}

	if pool == nil {
		matched, err = FilterDocument(doc, inner)
		return matched, true, err
	}

	key, done, err := pool.Keyer()
	if err != nil {
		return false, true, err
	}

	defer done()

	keyedDoc := embeddedCrudKeyed(doc, key).(*types.Document)
	keyedFilter := embeddedCrudKeyed(inner, key).(*types.Document)

	matched, err = FilterDocument(keyedDoc, keyedFilter)

	return matched, true, err
}

// embeddedCrudSortCollation takes the collation off the end of a sort.
func embeddedCrudSortCollation(sortDoc *types.Document) (*types.Document, *types.Document) {
	if sortDoc == nil || !sortDoc.Has(EmbeddedCrudCollationKey) {
		return sortDoc, nil
	}

	spec, _ := must.NotFail(sortDoc.Get(EmbeddedCrudCollationKey)).(*types.Document)

	res := sortDoc.DeepCopy()
	res.Remove(EmbeddedCrudCollationKey)

	return res, spec
}

// embeddedCrudSortDocuments sorts docs by their collation keys (handled: false for a sort without a collation).
func embeddedCrudSortDocuments(docs []*types.Document, sortDoc *types.Document) (handled bool, err error) {
	plain, spec := embeddedCrudSortCollation(sortDoc)
	if spec == nil {
		return false, nil
	}

	pool, err := EmbeddedCrudCollator(spec)
	if err != nil {
		return true, err
	}

	if pool == nil {
		return true, SortDocuments(docs, plain)
	}

	key, done, err := pool.Keyer()
	if err != nil {
		return true, err
	}

	defer done()

	keyed := make([]*types.Document, len(docs))
	index := make(map[*types.Document]int, len(docs))

	for i, d := range docs {
		keyed[i] = embeddedCrudKeyed(d, key).(*types.Document)
		index[keyed[i]] = i
	}

	if err = SortDocuments(keyed, plain); err != nil {
		return true, err
	}

	sorted := make([]*types.Document, len(docs))
	for i, k := range keyed {
		sorted[i] = docs[index[k]]
	}

	copy(docs, sorted)

	return true, nil
}

// EmbeddedCrudCollationDistinct keeps the first of the values equal under a collation, in the collation's order.
func EmbeddedCrudCollationDistinct(values *types.Array, spec *types.Document) (*types.Array, error) {
	pool, err := EmbeddedCrudCollator(spec)
	if err != nil || pool == nil {
		return values, err
	}

	key, done, err := pool.Keyer()
	if err != nil {
		return nil, err
	}

	defer done()

	type kv struct {
		key   any
		value any
	}

	var kept []kv

	for i := range values.Len() {
		v := must.NotFail(values.Get(i))
		k := embeddedCrudKeyed(v, key)

		dup := false

		for _, e := range kept {
			if types.CompareForAggregation(e.key, k) == types.Equal {
				dup = true
				break
			}
		}

		if !dup {
			kept = append(kept, kv{key: k, value: v})
		}
	}

	sort.SliceStable(kept, func(i, j int) bool {
		return types.CompareOrderForSort(kept[i].key, kept[j].key, types.Ascending) == types.Less
	}) //nolint:lll // for readability

	res := types.MakeArray(len(kept))
	for _, e := range kept {
		res.Append(e.value)
	}

	return res, nil
}

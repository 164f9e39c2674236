// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// A page of an $in, read as a merge.
//
// For `k IN (a, b, c) ORDER BY s LIMIT n` SQLite reads every document of a, b and c, computes each one's sort key
// (a JSON extraction: the SortKey columns are virtual) and sorts them all, to keep n. When an index starts with k
// followed by the sort's keys, each value's documents come from it already in the page's order, without computing
// a key. So the page is read as one statement per value (`k = ?`, the same ORDER BY, LIMIT skip+n), stepped lazily
// in one read transaction, and merged here as the rows come: the merge reads the key of each row it looks at from
// the stored document (in Go), and stops once the page is full, about n + (number of values) rows in all.
//
// The values select disjoint sets of documents, and the merge orders as SQLite orders SortKey values (NULL, then
// numbers by value, then text by bytes, then the BLOBs of ObjectIDs and booleans), ties by rowid, as the plain
// statement does: the rows are those it would give, in its order.

// maxMergedValues bounds the values of an $in read as a merge (one open statement each).
const maxMergedValues = 64

// embeddedMergeExplained starts the SQL an explain shows for a merge.
const embeddedMergeExplained = "-- merge of "

// mergeable returns the index of the $in condition when the statement is read as a merge: a pushed-down page (sort
// and LIMIT) whose filter holds one $in of 2 to maxMergedValues distinct values (no null) on a field that leads a
// declared index followed by the sort's keys, and otherwise only conditions on the sort's keys (a keyset page's
// range). With an equality on another field, SQLite may rather walk that field's index in the page's order.
func (s *embeddedStatement) mergeable() (int, bool) {
	p := s.plan
	if !s.pushed || s.pd.Limit <= 0 || len(p.sort) == 0 {
		return 0, false
	}

	sorted := map[string]bool{}
	for _, k := range p.sort {
		sorted[k.field] = true
	}

	in := -1

	for i, c := range p.conds {
		switch {
		case c.in && len(c.args) >= 2 && in < 0:
			in = i
		case c.field == "" || !sorted[c.field]:
			return 0, false // `_id`, another field, or a second $in
		}
	}

	if in < 0 || len(p.conds[in].args) > maxMergedValues || !distinctKeys(p.conds[in].args) {
		return 0, false
	}

	return in, p.indexServes(p.conds[in].field)
}

// branch returns the statement reading one value of the $in condition `in` (its rows' document and rowid, in the
// page's order, at most skip+limit) and the arguments for each value. Each value's read runs it with " /* <n> */"
// appended (tagged), so that each has a prepared statement of its own while all are open.
func (s *embeddedStatement) branch(selectClause string, in int) (string, [][]any) {
	p := s.plan
	from := fmt.Sprintf(" FROM %q", p.table)
	column := strings.TrimSuffix(selectClause, from)

	parts := make([]string, len(p.conds))
	for i, c := range p.conds {
		parts[i] = c.sql
		if i == in {
			parts[i] = metadata.SortKey(c.field) + " = ?"
		}
	}

	q := fmt.Sprintf("%s, rowid%s WHERE %s%s LIMIT ?", column, from, strings.Join(parts, " AND "), p.orderBy(true))

	values := p.conds[in].args
	res := make([][]any, len(values))

	for n, v := range values {
		var args []any

		for i, c := range p.conds {
			if i == in {
				args = append(args, v)
				continue
			}

			args = append(args, c.args...)
		}

		res[n] = append(args, s.pd.Limit+s.pd.Skip)
	}

	return q, res
}

// tagged is a value's statement text: q with its number.
func tagged(q string, n int) string {
	return q + " /* " + strconv.Itoa(n) + " */"
}

// queryMerged runs the statement as a merge of one read per value of its $in condition `in`, in tx (which the
// returned iterator ends).
func (s *embeddedStatement) queryMerged(ctx context.Context, db *fsql.DB, tx *fsql.Tx, selectClause string, in int) (*backends.QueryResult, error) { //nolint:lll // for readability
	query := querierOf(db, tx)
	n := len(s.plan.conds[in].args)
	iter := &mergeIterator{ctx: ctx, sort: s.plan.sort, fields: fields(s.plan.sort), skip: s.pd.Skip, left: s.pd.Limit}

	q, args := s.branch(selectClause, in)

	for i := 0; i < n; i++ {
		rows, err := query(ctx, tagged(q, i), args[i]...)
		if err != nil {
			iter.close()
			_ = tx.Rollback()

			return nil, lazyerrors.Error(err)
		}

		iter.reads = append(iter.reads, &mergeRead{rows: rows})
	}

	return &backends.QueryResult{Iter: &txIterator{DocumentsIterator: iter, tx: tx}, PushedDown: true}, nil
}

// mergeRead is one value's read: its current row (the stored document) and that row's sort key.
type mergeRead struct {
	rows  *fsql.Rows
	data  []byte
	key   []any
	rowid int64
	done  bool
}

// fields returns the sort's fields.
func fields(sort []embeddedSortKey) []string {
	res := make([]string, len(sort))
	for i, k := range sort {
		res[i] = k.field
	}

	return res
}

// advance reads the next row (or marks the read done).
func (r *mergeRead) advance(names []string) error {
	if !r.rows.Next() {
		err := r.rows.Err()
		r.done, r.data = true, nil

		return err
	}

	var text string
	if err := r.rows.Scan(&text, &r.rowid); err != nil {
		return err
	}

	// Kept past the read's next step: a copy.
	r.data = append(r.data[:0], stored(text)...)

	var err error
	if r.key, err = sjson.FieldValues(r.key[:0], r.data, names); err != nil {
		return err
	}

	return nil
}

// mergeIterator hands out the rows of the reads in the page's order: skip of them passed over, then at most left.
type mergeIterator struct {
	ctx     context.Context
	m       sync.Mutex
	reads   []*mergeRead
	sort    []embeddedSortKey
	fields  []string // the sort's
	skip    int64
	left    int64
	started bool
	closed  bool
}

// next returns the read holding the next row of the page (whose row the caller takes, then advances), or nil.
func (iter *mergeIterator) next() (*mergeRead, error) {
	if iter.closed {
		return nil, iterator.ErrIteratorDone
	}

	if err := context.Cause(iter.ctx); err != nil {
		iter.close()
		return nil, lazyerrors.Error(err)
	}

	if !iter.started {
		iter.started = true

		for _, r := range iter.reads {
			if err := r.advance(iter.fields); err != nil {
				iter.close()
				return nil, lazyerrors.Error(err)
			}
		}
	}

	for {
		if iter.left <= 0 {
			iter.close()
			return nil, iterator.ErrIteratorDone
		}

		var first *mergeRead

		for _, r := range iter.reads {
			if !r.done && (first == nil || iter.before(r, first)) {
				first = r
			}
		}

		if first == nil {
			iter.close()
			return nil, iterator.ErrIteratorDone
		}

		if iter.skip > 0 {
			iter.skip--

			if err := first.advance(iter.fields); err != nil {
				iter.close()
				return nil, lazyerrors.Error(err)
			}

			continue
		}

		iter.left--

		return first, nil
	}
}

// before reports whether a's row comes before b's in the page's order: the sort's keys, then rowid in the
// direction of the last key (as embeddedPlan.orderBy).
func (iter *mergeIterator) before(a, b *mergeRead) bool {
	for i, k := range iter.sort {
		c := compareSortKeys(a.key[i], b.key[i])
		if k.desc {
			c = -c
		}

		if c != 0 {
			return c < 0
		}
	}

	if iter.sort[len(iter.sort)-1].desc {
		return a.rowid > b.rowid
	}

	return a.rowid < b.rowid
}

// Next implements iterator.Interface.
func (iter *mergeIterator) Next() (struct{}, *types.Document, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	var unused struct{}

	r, err := iter.next()
	if err != nil {
		return unused, nil, err
	}

	doc, err := unmarshalDocument(r.data)
	if err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	if err = r.advance(iter.fields); err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	return unused, doc, nil
}

// AppendNextBSON implements backends.BSONIterator.
func (iter *mergeIterator) AppendNextBSON(dst []byte, keep func(name string) bool) ([]byte, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	r, err := iter.next()
	if err != nil {
		return dst, err
	}

	if dst, err = appendStoredBSON(dst, r.data, keep); err != nil {
		iter.close()
		return dst, err
	}

	if err = r.advance(iter.fields); err != nil {
		iter.close()
		return dst, lazyerrors.Error(err)
	}

	return dst, nil
}

// Close implements iterator.Interface.
func (iter *mergeIterator) Close() {
	iter.m.Lock()
	defer iter.m.Unlock()

	iter.close()
}

func (iter *mergeIterator) close() {
	iter.closed = true

	for _, r := range iter.reads {
		if r.rows != nil {
			r.rows.Close()
			r.rows = nil
		}

		r.done = true
	}
}

// compareSortKeys compares two field values as SQLite compares their SortKey values (metadata.SortKey): NULL
// (null, missing) < numbers (int32, int64, double, by value) < strings (bytes) < ObjectIDs (0x07 and the lower-case
// hex, fixed length) < booleans (0x08 and '0' or '1'). Other types never reach a merge (the plan's fields were
// checked for them).
func compareSortKeys(a, b any) int {
	ca, cb := sortKeyClass(a), sortKeyClass(b)
	if ca != cb {
		if ca < cb {
			return -1
		}

		return 1
	}

	switch ca {
	case 0:
		return 0
	case 1:
		return compareNumbers(a, b)
	case 2:
		return strings.Compare(a.(string), b.(string))
	default:
		return bytes.Compare(sortKeyBlob(a), sortKeyBlob(b))
	}
}

// sortKeyClass orders SQLite's storage classes of SortKey values: NULL, numbers, text, BLOB.
func sortKeyClass(v any) int {
	switch v.(type) {
	case nil, types.NullType:
		return 0
	case int32, int64, float64:
		return 1
	case string:
		return 2
	default:
		return 3
	}
}

// sortKeyBlob is the BLOB SortKey gives an ObjectID or a boolean.
func sortKeyBlob(v any) []byte {
	switch v := v.(type) {
	case types.ObjectID:
		return append([]byte{7}, hex.EncodeToString(v[:])...)
	case bool:
		if v {
			return []byte{8, '1'}
		}

		return []byte{8, '0'}
	case time.Time:
		if key, ok := dateKey(v); ok {
			return key
		}

		return []byte{0xff}
	default:
		return []byte{0xff}
	}
}

// compareNumbers compares int32, int64 and float64 values exactly, as SQLite compares INTEGER and REAL.
func compareNumbers(a, b any) int {
	ia, aInt := asInt(a)
	ib, bInt := asInt(b)

	switch {
	case aInt && bInt:
		return cmpInts(ia, ib)
	case aInt:
		return -compareFloatInt(b.(float64), ia)
	case bInt:
		return compareFloatInt(a.(float64), ib)
	default:
		fa, fb := a.(float64), b.(float64)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		default:
			return 0
		}
	}
}

func asInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	default:
		return 0, false
	}
}

func cmpInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	default:
		return 0
	}
}

// compareFloatInt compares f with i exactly (no rounding of i to a double).
func compareFloatInt(f float64, i int64) int {
	switch {
	case f < -9223372036854775808.0:
		return -1
	case f >= 9223372036854775808.0:
		return 1
	}

	t := int64(f) // f truncated towards zero, exact in this range
	if c := cmpInts(t, i); c != 0 {
		return c
	}

	// f and i agree in their whole part; f's fraction decides.
	switch r := f - float64(t); {
	case r > 0:
		return 1
	case r < 0:
		return -1
	default:
		return 0
	}
}

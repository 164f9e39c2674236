// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Pushdown of filters, sorts, skips, limits and counts to SQLite.
//
// FerretDB's handler filters and sorts in memory whatever Query returns, so the WHERE clause built here may select
// a superset of the matching documents; LIMIT and OFFSET (and counts) are applied only when the WHERE clause and
// ORDER BY are exact for the values stored.
//
// Conditions are pushed down for top-level fields that lead an index on their metadata.SortKey (the fields of the
// collection's declared indexes): equality, $eq, $in and $gt/$gte/$lt/$lte with values SortKey models. SortKey
// cannot match an array's elements, and orders only the types it models, so the query checks, in its own snapshot,
// that no stored document has another type there (an index search for metadata.OtherTypes): as a column of the
// query's statement (embedded_pushdown_checked.go), or first, in the same read transaction. If one does, that field's
// conditions are left to the handler and nothing is cut.
// `_id` is compared on metadata.IDColumn as FerretDB does, with its type checked for exactness.
//
// Everything else (other operators, nested fields, $and/$or, capped collections) is left to the handler, as
// FerretDB does. FERRETDB_EMBEDDED_PUSHDOWN=off turns all of it off (for comparing with FerretDB's own behaviour).
//
// A page (a sort and a LIMIT) whose filter holds an $in of several values on a field that leads an index followed by
// the sort's keys is read as a merge (embedded_pushdown_merge.go): one read per value in index order, merged as the rows come,
// until the page is full, instead of every document of every value read and sorted.

// embeddedPushdownOff is true when FERRETDB_EMBEDDED_PUSHDOWN=off.
var embeddedPushdownOff = embedded.PushdownOff

// unmarshalDocument decodes the documents Query reads: with sjson.UnmarshalOnePass, or as FerretDB does when the
// pushdown is off (so comparing both compares the decoders too).
var unmarshalDocument = func() func([]byte) (*types.Document, error) {
	if embeddedPushdownOff {
		return sjson.Unmarshal
	}

	return sjson.UnmarshalOnePass
}()

// embeddedCond is one pushed-down condition: SQL text with its arguments.
type embeddedCond struct {
	field string // a SortKey field to check before use; "" for `_id`
	sql   string
	args  []any
	exact bool // selects exactly the documents the condition matches (given a checked field)
	in    bool // an $in of SortKey values without null: `field IN (args)`
	// of a $ne or $nin (embedded_pushdown_negations.go): the condition it negates, so a count can subtract the
	// matches of that one (each an index search) from those of the rest, instead of testing every row
	negates *embeddedCond
}

// embeddedSortKey is one key of a pushed-down sort.
type embeddedSortKey struct {
	field string
	desc  bool
}

// embeddedPlan is what can be pushed down of one query.
type embeddedPlan struct {
	table   string
	indexes []metadata.IndexInfo
	conds   []embeddedCond
	// exact: every condition of the filter is in conds and exact.
	exact bool
	// sort: nil when no sort was asked or it cannot be pushed down; sorted is false in the latter case.
	sort   []embeddedSortKey
	sorted bool
}

// newEmbeddedPlan plans filter and sort for a collection's table.
func newEmbeddedPlan(meta *metadata.Collection, filter, sort *types.Document) *embeddedPlan {
	fields := metadata.EmbeddedKeyFields(meta)
	p := &embeddedPlan{table: meta.TableName, indexes: meta.Settings.Indexes, exact: true, sorted: true}

	if filter != nil {
		values := filter.Values()

		for i, key := range filter.Keys() {
			value := values[i]

			var conds []embeddedCond
			var ok bool

			switch {
			case key == "$comment":
				continue
			case key == "_id":
				conds, ok = idConds(value)
			case fields[key]:
				conds, ok = keyConds(key, value)
			}

			if !ok {
				p.exact = false
				continue
			}

			for _, c := range conds {
				p.exact = p.exact && c.exact
			}

			p.conds = append(p.conds, conds...)
		}
	}

	if sort.Len() > 0 {
		for _, key := range sort.Keys() {
			order, _ := sort.Get(key)
			o, isInt := order.(int64)

			if !fields[key] || !isInt || (o != 1 && o != -1) {
				p.sort, p.sorted = nil, false
				break
			}

			p.sort = append(p.sort, embeddedSortKey{field: key, desc: o == -1})
		}
	}

	return p
}

// keyValue returns the metadata.SortKey value of a filter value, if SortKey models its type (null aside).
func keyValue(v any) (any, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}

		return v, true
	case string:
		return v, true
	case bool:
		if v {
			return []byte{8, '1'}, true
		}

		return []byte{8, '0'}, true
	case types.ObjectID:
		return append([]byte{7}, hex.EncodeToString(v[:])...), true
	case time.Time:
		return dateKey(v)
	default:
		return nil, false
	}
}

// keyConds returns the conditions for one top-level field, or false if they cannot be pushed down.
func keyConds(field string, value any) ([]embeddedCond, bool) {
	k := metadata.SortKey(field)

	eq := func(v any) (embeddedCond, bool) {
		if v == types.Null {
			return embeddedCond{field: field, sql: k + " IS NULL", exact: true}, true
		}

		kv, ok := keyValue(v)
		if !ok {
			return embeddedCond{}, false
		}

		return embeddedCond{field: field, sql: k + " = ?", args: []any{kv}, exact: true}, true
	}

	ops, isDoc := value.(*types.Document)
	if !isDoc {
		c, ok := eq(value)
		return []embeddedCond{c}, ok
	}

	if ops.Len() == 0 {
		return nil, false
	}

	var res []embeddedCond

	for _, op := range ops.Keys() {
		v := must.NotFail(ops.Get(op))

		switch op {
		case "$eq":
			c, ok := eq(v)
			if !ok {
				return nil, false
			}

			res = append(res, c)

		case "$in":
			arr, ok := v.(*types.Array)
			if !ok {
				return nil, false
			}

			var null bool
			var args []any

			for i := 0; i < arr.Len(); i++ {
				e := must.NotFail(arr.Get(i))
				if e == types.Null {
					null = true
					continue
				}

				kv, ok := keyValue(e)
				if !ok {
					return nil, false
				}

				args = append(args, kv)
			}

			var parts []string
			if len(args) > 0 {
				parts = append(parts, k+" IN ("+placeholders(len(args))+")")
			}

			if null {
				parts = append(parts, k+" IS NULL")
			}

			sql := "0"
			if len(parts) > 0 {
				sql = "(" + strings.Join(parts, " OR ") + ")"
			}

			res = append(res, embeddedCond{field: field, sql: sql, args: args, exact: true, in: !null && len(args) > 0})

		case "$ne", "$nin":
			c, ok := negationConds(field, k, op, v)
			if !ok {
				return nil, false
			}

			res = append(res, c)

		case "$gt", "$gte", "$lt", "$lte":
			kv, ok := keyValue(v)
			if !ok {
				return nil, false
			}

			// Comparisons match values of the bound's type only (numbers or strings): bracket the range.
			var bracket string

			switch v.(type) {
			case int32, int64, float64:
				bracket = k + " < ''" // every number sorts below every string
			case string:
				bracket = k + " < x''" // every string sorts below every BLOB
			case time.Time:
				bracket = dateBracket(k)
			default:
				return nil, false
			}

			var sql string

			switch op {
			case "$gt":
				sql = k + " > ? AND " + bracket
			case "$gte":
				sql = k + " >= ? AND " + bracket
			case "$lt":
				sql = k + " < ?"
			case "$lte":
				sql = k + " <= ?"
			}

			if _, isDate := v.(time.Time); isDate && (op == "$lt" || op == "$lte") {
				sql += " AND " + k + " >= x'09'" // above every boolean (dates' own bracket)
			}

			if _, isString := v.(string); isString && (op == "$lt" || op == "$lte") {
				sql += " AND " + k + " >= ''" // above every number
			}

			res = append(res, embeddedCond{field: field, sql: sql, args: []any{kv}, exact: true})

		default:
			return nil, false
		}
	}

	return res, true
}

// idConds returns the conditions on `_id`, compared as FerretDB compares it (metadata.IDColumn, the sjson text of
// the value), or false if they cannot be pushed down. `_id` is never an array; its type is checked for exactness
// (a string and an ObjectID may have the same sjson text).
func idConds(value any) ([]embeddedCond, bool) {
	values := []any{value}

	if ops, isDoc := value.(*types.Document); isDoc {
		if ops.Len() != 1 {
			return nil, false
		}

		switch op := ops.Keys()[0]; op {
		case "$eq":
			values = []any{must.NotFail(ops.Get(op))}
		case "$in":
			arr, ok := must.NotFail(ops.Get(op)).(*types.Array)
			if !ok {
				return nil, false
			}

			values = must.NotFail(iterator.ConsumeValues(arr.Iterator()))
			if len(values) == 0 {
				return []embeddedCond{{sql: "0", exact: true}}, true
			}
		default:
			return nil, false
		}
	}

	typeNames := map[string]bool{}
	args := make([]any, len(values))

	for i, v := range values {
		switch v.(type) {
		case string:
			typeNames["string"] = true
		case types.ObjectID:
			typeNames["objectId"] = true
		default:
			return nil, false
		}

		args[i] = string(must.NotFail(sjson.MarshalSingleValue(v)))
	}

	sql := metadata.IDColumn + " = ?"
	if len(args) > 1 {
		sql = metadata.IDColumn + " IN (" + placeholders(len(args)) + ")"
	}

	if len(typeNames) > 1 {
		return []embeddedCond{{sql: sql, args: args}}, true
	}

	for name := range typeNames {
		sql += fmt.Sprintf(" AND %s = '%s'", metadata.TypeOf("_id"), name)
	}

	return []embeddedCond{{sql: sql, args: args, exact: true}}, true
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// checkFields returns the SortKey fields the plan uses: those of its conditions, and of its sort if it has one.
func (p *embeddedPlan) checkFields() []string {
	var res []string
	seen := map[string]bool{}

	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			res = append(res, f)
		}
	}

	for _, c := range p.conds {
		add(c.field)
	}

	for _, s := range p.sort {
		add(s.field)
	}

	return res
}

// querier runs a query in a transaction or not.
type querier func(ctx context.Context, query string, args ...any) (*fsql.Rows, error)

func querierOf(db *fsql.DB, tx *fsql.Tx) querier {
	// Through statements prepared once per text (fsql/embedded_stmts.go): these reads repeat a few texts.
	return func(ctx context.Context, query string, args ...any) (*fsql.Rows, error) {
		return db.QueryPrepared(ctx, tx, query, args...)
	}
}

// check looks, in one statement, for stored values of other types in the plan's fields (each an index search),
// and drops the conditions and the sort on any field that has some.
func (p *embeddedPlan) check(ctx context.Context, query querier) error {
	fields := p.checkFields()
	if len(fields) == 0 {
		return nil
	}

	exists := make([]string, len(fields))
	for i, f := range fields {
		exists[i] = fmt.Sprintf(
			"EXISTS (SELECT 1 FROM %q WHERE %s >= %s)", p.table, metadata.SortKey(f), metadata.UnmodelledKeys(),
		)
	}

	rows, err := query(ctx, "SELECT "+strings.Join(exists, ", "))
	if err != nil {
		return lazyerrors.Error(err)
	}
	defer rows.Close()

	if !rows.Next() {
		if err = rows.Err(); err == nil {
			err = errors.New("no row")
		}

		return lazyerrors.Error(err)
	}

	found := make([]bool, len(fields))
	dest := make([]any, len(fields))

	for i := range found {
		dest[i] = &found[i]
	}

	if err = rows.Scan(dest...); err != nil {
		return lazyerrors.Error(err)
	}

	if err = rows.Err(); err != nil {
		return lazyerrors.Error(err)
	}

	mixed := map[string]bool{}

	for i, f := range fields {
		mixed[f] = found[i]
	}

	conds := p.conds[:0]

	for _, c := range p.conds {
		if mixed[c.field] {
			p.exact = false
			continue
		}

		conds = append(conds, c)
	}

	p.conds = conds

	for _, s := range p.sort {
		if mixed[s.field] {
			p.sort, p.sorted = nil, false
			break
		}
	}

	return nil
}

// where returns the WHERE clause (with a leading space) and its arguments.
func (p *embeddedPlan) where() (string, []any) {
	if len(p.conds) == 0 {
		return "", nil
	}

	parts := make([]string, len(p.conds))
	var args []any

	for i, c := range p.conds {
		parts[i] = c.sql
		args = append(args, c.args...)
	}

	return " WHERE " + strings.Join(parts, " AND "), args
}

// orderBy returns the ORDER BY clause: the sort's keys when it is pushed down, then the natural order (rowid, the
// order FerretDB returns a table in), which also orders ties.
func (p *embeddedPlan) orderBy(pushed bool) string {
	if !pushed || len(p.sort) == 0 {
		return " ORDER BY rowid"
	}

	keys := make([]string, len(p.sort))

	for i, s := range p.sort {
		keys[i] = metadata.SortKey(s.field)
		if s.desc {
			keys[i] += " DESC"
		}
	}

	// In the direction of the last key, so that an index on the keys gives the whole order.
	rowid := "rowid"
	if p.sort[len(p.sort)-1].desc {
		rowid += " DESC"
	}

	return " ORDER BY " + strings.Join(keys, ", ") + ", " + rowid
}

// embeddedStatement is a planned query: how to check its fields, then its SQL.
type embeddedStatement struct {
	plan   *embeddedPlan
	pd     *backends.QueryPushdown
	limit  int64 // QueryParams.Limit (FerretDB's own limit pushdown)
	pushed bool
}

// prepare plans a Query: in a read transaction when fields must be checked (the transaction is then returned and
// the caller must end it; in a client's transaction, none is returned: its statements share its snapshot).
func (c *collection) prepareEmbedded(ctx context.Context, db *fsql.DB, meta *metadata.Collection, filter *types.Document, pd *backends.QueryPushdown, limit int64) (*embeddedStatement, *fsql.Tx, error) { //nolint:lll // for readability
	var sort *types.Document
	if pd != nil {
		sort = pd.Sort
	}

	p := newEmbeddedPlan(meta, filter, sort)
	s := &embeddedStatement{plan: p, pd: pd, limit: limit}

	var tx *fsql.Tx

	if len(p.checkFields()) > 0 {
		var err error
		if tx, err = db.BeginTx(ctx); err != nil {
			return nil, nil, lazyerrors.Error(err)
		}

		if err = p.check(ctx, querierOf(db, tx)); err != nil {
			if tx != nil {
				_ = tx.Rollback()
			}

			return nil, nil, lazyerrors.Error(err)
		}
	}

	s.pushed = pd != nil && p.exact && p.sorted

	return s, tx, nil
}

// sql returns the statement selecting the documents (after selectClause) and its arguments.
func (s *embeddedStatement) sql(selectClause string) (string, []any) {
	where, args := s.plan.where()
	q := selectClause + where + s.plan.orderBy(s.pushed)

	switch {
	case s.pushed && (s.pd.Limit > 0 || s.pd.Skip > 0):
		limit := s.pd.Limit
		if limit == 0 {
			limit = -1
		}

		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, s.pd.Skip)

	case s.limit != 0:
		// FerretDB's own: only with no filter, sort or skip.
		q += " LIMIT ?"
		args = append(args, s.limit)
	}

	return q, args
}

// distinctKeys reports whether no two SortKey values are equal as SQLite compares them (numbers by value, so an
// int64 and a float64 holding the same number are equal; two large int64 that one float64 stands for count as equal
// too, which only leaves such a query unmerged).
func distinctKeys(values []any) bool {
	seen := map[any]bool{}

	for _, v := range values {
		var key any

		switch v := v.(type) {
		case int64:
			key = float64(v)
		case float64:
			key = v
		case string:
			key = "s" + v
		case []byte:
			key = "b" + string(v)
		default:
			return false
		}

		if seen[key] {
			return false
		}

		seen[key] = true
	}

	return true
}

// indexServes reports whether a declared index starts with field followed by the sort's keys (all in the sort's
// directions, or all in the opposite ones): for one value of field, it gives the page's order.
func (p *embeddedPlan) indexServes(field string) bool {
	for _, index := range p.indexes {
		key := index.Key
		if len(key) < len(p.sort)+1 || key[0].Field != field {
			continue
		}

		same, opposite := true, true

		for i, s := range p.sort {
			k := key[i+1]
			if k.Field != s.field {
				same, opposite = false, false
				break
			}

			same = same && k.Descending == s.desc
			opposite = opposite && k.Descending != s.desc
		}

		if same || opposite {
			return true
		}
	}

	return false
}

// queryEmbedded implements Query with pushdown (for collections that are not capped).
func (c *collection) queryEmbedded(ctx context.Context, db *fsql.DB, meta *metadata.Collection, params *backends.QueryParams) (*backends.QueryResult, error) { //nolint:lll // for readability
	// In one statement with its check, when it can be (embedded_pushdown_checked.go).
	if res, ok, err := c.queryChecked(ctx, db, meta, params); ok || err != nil {
		return res, err
	}

	s, tx, err := c.prepareEmbedded(ctx, db, meta, params.Filter, params.Pushdown, params.Limit)
	if err != nil {
		return nil, err
	}

	if in, ok := s.mergeable(); ok && !params.OnlyRecordIDs && tx != nil {
		return s.queryMerged(ctx, db, tx, prepareSelectClause(meta.TableName, params.Comment, false, false), in)
	}

	q, args := s.sql(prepareSelectClause(meta.TableName, params.Comment, false, params.OnlyRecordIDs))

	rows, err := querierOf(db, tx)(ctx, q, args...)
	if err != nil {
		if tx != nil {
			_ = tx.Rollback()
		}

		return nil, lazyerrors.Error(err)
	}

	iter := newQueryIterator(ctx, rows, params.OnlyRecordIDs)
	if tx != nil {
		iter = &txIterator{DocumentsIterator: iter, tx: tx}
	}

	return &backends.QueryResult{Iter: iter, PushedDown: s.pushed}, nil
}

// CountExact implements backends.ExactCounter.
func (c *collection) CountExact(ctx context.Context, params *backends.QueryParams) (int64, bool, error) {
	if embeddedPushdownOff {
		return 0, false, nil
	}

	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return 0, true, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return 0, true, nil
	}

	if meta.Capped() {
		return 0, false, nil
	}

	pd := &backends.QueryPushdown{}
	if params.Pushdown != nil {
		pd = &backends.QueryPushdown{Skip: params.Pushdown.Skip, Limit: params.Pushdown.Limit}
	}

	s, tx, err := c.prepareEmbedded(ctx, db, meta, params.Filter, pd, 0)
	if err != nil {
		return 0, false, err
	}

	if tx != nil {
		defer tx.Rollback() //nolint:errcheck // read only
	}

	if !s.pushed {
		return 0, false, nil
	}

	where, args := s.plan.where()
	sql := fmt.Sprintf("SELECT count(*) FROM %q%s", meta.TableName, where)

	if pd.Skip == 0 && pd.Limit == 0 {
		if q, a, ok := s.plan.negatedCount(meta.TableName); ok {
			sql, args = q, a
		}
	}

	if pd.Skip > 0 || pd.Limit > 0 {
		limit := pd.Limit
		if limit == 0 {
			limit = -1
		}

		sql = fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %q%s LIMIT ? OFFSET ?)", meta.TableName, where)
		args = append(args, limit, pd.Skip)
	}

	rows, err := querierOf(db, tx)(ctx, sql, args...)
	if err != nil {
		return 0, false, lazyerrors.Error(err)
	}
	defer rows.Close()

	var n int64

	if !rows.Next() {
		if err = rows.Err(); err == nil {
			err = errors.New("no row")
		}

		return 0, false, lazyerrors.Error(err)
	}

	if err = rows.Scan(&n); err != nil {
		return 0, false, lazyerrors.Error(err)
	}

	if err = rows.Err(); err != nil {
		return 0, false, lazyerrors.Error(err)
	}

	return n, true, nil
}

// explainEmbedded implements Explain with pushdown: the plan of the statement Query would run.
func (c *collection) explainEmbedded(ctx context.Context, db *fsql.DB, meta *metadata.Collection, params *backends.ExplainParams) (*backends.ExplainResult, error) { //nolint:lll // for readability
	s, tx, err := c.prepareEmbedded(ctx, db, meta, params.Filter, params.Pushdown, params.Limit)
	if err != nil {
		return nil, err
	}

	if tx != nil {
		defer tx.Rollback() //nolint:errcheck // read only
	}

	sql, args := s.sql(prepareSelectClause(meta.TableName, "", false, false))
	shown := sql

	// A merge: the plan of its read of the first value (each value's read is the same statement).
	if in, ok := s.mergeable(); ok {
		branch, branchArgs := s.branch(prepareSelectClause(meta.TableName, "", false, false), in)
		sql, args = tagged(branch, 0), branchArgs[0]
		shown = fmt.Sprintf("%s%d reads in order, merged: %s", embeddedMergeExplained, len(branchArgs), branch)
	}

	rows, err := querierOf(db, tx)(ctx, "EXPLAIN QUERY PLAN "+sql, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	plan := types.MakeArray(0)

	for rows.Next() {
		var id, parent, notused int32
		var detail string

		if err = rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, lazyerrors.Error(err)
		}

		plan.Append(fmt.Sprintf("id=%d parent=%d notused=%d detail=%s", id, parent, notused, detail))
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return &backends.ExplainResult{
		QueryPlanner:   must.NotFail(types.NewDocument("Plan", plan, "SQL", shown)),
		FilterPushdown: len(s.plan.conds) > 0,
		SortPushdown:   s.pushed && len(s.plan.sort) > 0,
		LimitPushdown:  s.pushed && s.pd != nil && (s.pd.Limit > 0 || s.pd.Skip > 0) || s.limit != 0,
	}, nil
}

// txIterator ends a read transaction when its documents are done or closed.
type txIterator struct {
	types.DocumentsIterator
	tx   *fsql.Tx
	once sync.Once
}

// Next implements iterator.Interface.
func (iter *txIterator) Next() (struct{}, *types.Document, error) {
	k, doc, err := iter.DocumentsIterator.Next()
	if err != nil {
		iter.end()
	}

	return k, doc, err
}

// Close implements iterator.Interface.
func (iter *txIterator) Close() {
	iter.DocumentsIterator.Close()
	iter.end()
}

func (iter *txIterator) end() {
	iter.once.Do(func() { _ = iter.tx.Rollback() })
}

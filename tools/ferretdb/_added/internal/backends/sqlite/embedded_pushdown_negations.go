// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// $ne and $nin in the pushdown (part of pushdown.patch's concern; switch FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS=off).
//
// On a checked field (its values all of the types SortKey models: no arrays, no documents), MongoDB's {f: {$ne: v}}
// matches exactly the documents whose SortKey is not v, a null or missing field included: SQLite's `k IS NOT ?`
// (NULL IS NOT 7 is true). {$ne: null} is `k IS NOT NULL`. {$nin: [...]} is `k NOT IN (...)` or null, or, with null
// among the values, `k IS NOT NULL AND k NOT IN (...)`. "What is still open" (project_status $ne "done") is then
// exact, and a sorted page of it walks the sort's index under the LIMIT instead of FerretDB reading the collection.

// negationConds returns the condition of a $ne or $nin on column k of field, or false if it cannot be pushed down.
func negationConds(field, k, op string, v any) (embeddedCond, bool) {
	if embedded.PushdownNegationsOff {
		return embeddedCond{}, false
	}

	if op == "$ne" {
		if v == types.Null {
			return embeddedCond{
				field: field, sql: k + " IS NOT NULL", exact: true,
				negates: &embeddedCond{sql: k + " IS NULL"},
			}, true
		}

		kv, ok := keyValue(v)
		if !ok {
			return embeddedCond{}, false
		}

		return embeddedCond{
			field: field, sql: k + " IS NOT ?", args: []any{kv}, exact: true,
			negates: &embeddedCond{sql: k + " = ?", args: []any{kv}},
		}, true
	}

	arr, ok := v.(*types.Array)
	if !ok {
		return embeddedCond{}, false
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
			return embeddedCond{}, false
		}

		args = append(args, kv)
	}

	var parts []string
	if null {
		parts = append(parts, k+" IS NOT NULL")
	}

	if len(args) > 0 {
		notIn := k + " NOT IN (" + placeholders(len(args)) + ")"
		if !null {
			notIn = "(" + notIn + " OR " + k + " IS NULL)"
		}

		parts = append(parts, notIn)
	}

	sql := "1"
	if len(parts) > 0 {
		sql = "(" + strings.Join(parts, " AND ") + ")"
	}

	// What it negates: the values, or null.
	var positive []string
	if len(args) > 0 {
		positive = append(positive, k+" IN ("+placeholders(len(args))+")")
	}

	if null {
		positive = append(positive, k+" IS NULL")
	}

	negated := "0"
	if len(positive) > 0 {
		negated = "(" + strings.Join(positive, " OR ") + ")"
	}

	return embeddedCond{
		field: field, sql: sql, args: args, exact: true,
		negates: &embeddedCond{sql: negated, args: args},
	}, true
}

// negatedCount returns a count of the plan's matches as the matches of its other conditions less those that also
// meet what its one negation negates (each count an index search or SQLite's count of a whole index, in one
// statement, so one snapshot), or false unless exactly one of its conditions is a negation.
func (p *embeddedPlan) negatedCount(table string) (string, []any, bool) {
	at := -1

	for i, c := range p.conds {
		if c.negates != nil {
			if at >= 0 {
				return "", nil, false
			}

			at = i
		}
	}

	if at < 0 {
		return "", nil, false
	}

	var others []string
	var args []any

	for i, c := range p.conds {
		if i != at {
			others = append(others, c.sql)
			args = append(args, c.args...)
		}
	}

	where := ""
	if len(others) > 0 {
		where = " WHERE " + strings.Join(others, " AND ")
	}

	negated := p.conds[at].negates
	also := " WHERE " + negated.sql
	if len(others) > 0 {
		also = where + " AND " + negated.sql
	}

	sql := fmt.Sprintf("SELECT (SELECT count(*) FROM %q%s) - (SELECT count(*) FROM %q%s)", table, where, table, also)

	return sql, append(append(args, args...), negated.args...), true
}

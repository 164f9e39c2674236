// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// Aggregation expressions (crud concern), for $expr in filters and for updates given as a pipeline: field paths
// ("$a.b"), $$ROOT and $$CURRENT, constants, documents and arrays of expressions, and the operators below. FerretDB
// 1.24 has almost none of these ($expr knew only $type and $sum). A `let` variable ($$name) was replaced by its value
// before the command was read (handler/embedded_crud_let.go). Any other operator or variable is refused with
// NotImplemented naming it.

// embeddedCrudMissing is the value of a field path that names no field.
type embeddedCrudMissing struct{}

// embeddedCrudOperators are the expression operators known here.
var embeddedCrudOperators map[string]func(args any, root *types.Document) (any, error)

func init() {
	embeddedCrudOperators = map[string]func(args any, root *types.Document) (any, error){
		"$literal":  func(args any, _ *types.Document) (any, error) { return args, nil },
		"$eq":       embeddedCrudCompare("$eq", func(c types.CompareResult) bool { return c == types.Equal }),
		"$ne":       embeddedCrudCompare("$ne", func(c types.CompareResult) bool { return c != types.Equal }),
		"$gt":       embeddedCrudCompare("$gt", func(c types.CompareResult) bool { return c == types.Greater }),
		"$gte":      embeddedCrudCompare("$gte", func(c types.CompareResult) bool { return c != types.Less }),
		"$lt":       embeddedCrudCompare("$lt", func(c types.CompareResult) bool { return c == types.Less }),
		"$lte":      embeddedCrudCompare("$lte", func(c types.CompareResult) bool { return c != types.Greater }),
		"$and":      embeddedCrudLogical(true),
		"$or":       embeddedCrudLogical(false),
		"$not":      embeddedCrudNot,
		"$rand":     func(any, *types.Document) (any, error) { return rand.Float64(), nil }, //nolint:gosec // as $rand
		"$setField": embeddedCrudSetField,
		"$getField": embeddedCrudGetField,
	}
}

// embeddedCrudNotImplemented is the refusal of what the embedded database cannot evaluate.
func embeddedCrudNotImplemented(what string) error {
	return handlererrors.NewCommandErrorMsg(
		handlererrors.ErrNotImplemented,
		fmt.Sprintf("the embedded database does not implement %s in aggregation expressions", what),
	)
}

// EmbeddedCrudEval evaluates an aggregation expression against root; a field path naming no field gives
// embeddedCrudMissing{}.
func EmbeddedCrudEval(expr any, root *types.Document) (any, error) {
	switch e := expr.(type) {
	case string:
		switch {
		case strings.HasPrefix(e, "$$"):
			name, rest, _ := strings.Cut(e[2:], ".")
			if name != "ROOT" && name != "CURRENT" {
				// A user variable (lower-case first letter) that reaches here is one no `let` defined: the let
				// feature replaced the defined ones, and no operator here binds variables. MongoDB refuses it so.
				if name != "" && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= 0x80) {
					return nil, handlererrors.NewCommandErrorMsg(
						handlererrors.ErrorCode(17276),
						fmt.Sprintf("Use of undefined variable: %s", name),
					)
				}

				return nil, embeddedCrudNotImplemented("the variable $$" + name)
			}

			if rest == "" {
				return root, nil
			}

			return embeddedCrudPath(root, strings.Split(rest, ".")), nil
		case strings.HasPrefix(e, "$"):
			return embeddedCrudPath(root, strings.Split(e[1:], ".")), nil
		default:
			return e, nil
		}

	case *types.Document:
		keys := e.Keys()
		if len(keys) == 1 && strings.HasPrefix(keys[0], "$") {
			op := embeddedCrudOperators[keys[0]]
			if op == nil {
				return nil, embeddedCrudNotImplemented("the operator " + keys[0])
			}

			args, _ := e.Get(keys[0])

			return op(args, root)
		}

		res := types.MakeDocument(len(keys))

		for _, k := range keys {
			if strings.HasPrefix(k, "$") {
				return nil, handlererrors.NewCommandErrorMsg(
					handlererrors.ErrNotImplemented,
					fmt.Sprintf("the embedded database does not implement the operator %s in an expression object", k),
				)
			}

			v, _ := e.Get(k)

			ev, err := EmbeddedCrudEval(v, root)
			if err != nil {
				return nil, err
			}

			if _, missing := ev.(embeddedCrudMissing); !missing {
				res.Set(k, ev)
			}
		}

		return res, nil

	case *types.Array:
		res := types.MakeArray(e.Len())

		for i := range e.Len() {
			v, _ := e.Get(i)

			ev, err := EmbeddedCrudEval(v, root)
			if err != nil {
				return nil, err
			}

			if _, missing := ev.(embeddedCrudMissing); missing {
				ev = types.Null
			}

			res.Append(ev)
		}

		return res, nil

	default:
		return expr, nil
	}
}

// embeddedCrudPath reads a field path as aggregation does: through arrays, element by element.
func embeddedCrudPath(v any, path []string) any {
	if len(path) == 0 {
		return v
	}

	switch v := v.(type) {
	case *types.Document:
		next, err := v.Get(path[0])
		if err != nil {
			return embeddedCrudMissing{}
		}

		return embeddedCrudPath(next, path[1:])

	case *types.Array:
		res := types.MakeArray(v.Len())

		for i := range v.Len() {
			elem, _ := v.Get(i)
			if _, ok := elem.(*types.Document); !ok {
				continue
			}

			if ev := embeddedCrudPath(elem, path); ev != (embeddedCrudMissing{}) {
				res.Append(ev)
			}
		}

		return res

	default:
		return embeddedCrudMissing{}
	}
}

// embeddedCrudArgs evaluates an operator's arguments given as an array of n expressions.
func embeddedCrudArgs(op string, args any, n int, root *types.Document) ([]any, error) {
	arr, ok := args.(*types.Array)
	if !ok {
		arr = types.MakeArray(1)
		arr.Append(args)
	}

	if n >= 0 && arr.Len() != n {
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrOperatorWrongLenOfArgs,
			fmt.Sprintf("Expression %s takes exactly %d arguments. %d were passed in.", op, n, arr.Len()),
		)
	}

	res := make([]any, arr.Len())

	for i := range arr.Len() {
		v, _ := arr.Get(i)

		ev, err := EmbeddedCrudEval(v, root)
		if err != nil {
			return nil, err
		}

		res[i] = ev
	}

	return res, nil
}

// embeddedCrudCompare is a comparison operator: BSON order, with a missing value below null.
func embeddedCrudCompare(op string, test func(types.CompareResult) bool) func(any, *types.Document) (any, error) {
	return func(args any, root *types.Document) (any, error) {
		vs, err := embeddedCrudArgs(op, args, 2, root)
		if err != nil {
			return nil, err
		}

		_, m0 := vs[0].(embeddedCrudMissing)
		_, m1 := vs[1].(embeddedCrudMissing)

		switch {
		case m0 && m1:
			return test(types.Equal), nil
		case m0:
			return test(types.Less), nil
		case m1:
			return test(types.Greater), nil
		}

		return test(types.CompareForAggregation(vs[0], vs[1])), nil
	}
}

// EmbeddedCrudTruthy is how an expression's value counts as a condition.
func EmbeddedCrudTruthy(v any) bool {
	switch v := v.(type) {
	case embeddedCrudMissing, types.NullType:
		return false
	case bool:
		return v
	case int32:
		return v != 0
	case int64:
		return v != 0
	case float64:
		return v != 0
	default:
		return true
	}
}

func embeddedCrudLogical(and bool) func(any, *types.Document) (any, error) {
	return func(args any, root *types.Document) (any, error) {
		vs, err := embeddedCrudArgs("$and", args, -1, root)
		if err != nil {
			return nil, err
		}

		for _, v := range vs {
			if EmbeddedCrudTruthy(v) != and {
				return !and, nil
			}
		}

		return and, nil
	}
}

func embeddedCrudNot(args any, root *types.Document) (any, error) {
	vs, err := embeddedCrudArgs("$not", args, 1, root)
	if err != nil {
		return nil, err
	}

	return !EmbeddedCrudTruthy(vs[0]), nil
}

// embeddedCrudFieldArgs reads $setField's and $getField's {field, input[, value]}.
func embeddedCrudFieldArgs(op string, args any, root *types.Document) (string, any, *types.Document, error) {
	d, ok := args.(*types.Document)
	if !ok || !d.Has("field") {
		if s, ok := args.(string); ok && op == "$getField" {
			return s, root, d, nil
		}

		return "", nil, nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrFailedToParse, fmt.Sprintf("%s requires 'field' to be specified", op),
		)
	}

	fv, _ := d.Get("field")

	field, err := EmbeddedCrudEval(fv, root)
	if err != nil {
		return "", nil, nil, err
	}

	name, ok := field.(string)
	if !ok {
		return "", nil, nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrFailedToParse, fmt.Sprintf("%s requires 'field' to evaluate to type String", op),
		)
	}

	var input any = root
	if iv, err := d.Get("input"); err == nil {
		if input, err = EmbeddedCrudEval(iv, root); err != nil {
			return "", nil, nil, err
		}
	}

	return name, input, d, nil
}

func embeddedCrudSetField(args any, root *types.Document) (any, error) {
	name, input, d, err := embeddedCrudFieldArgs("$setField", args, root)
	if err != nil {
		return nil, err
	}

	var res *types.Document

	switch in := input.(type) {
	case *types.Document:
		res = in.DeepCopy()
	case types.NullType, embeddedCrudMissing:
		return types.Null, nil
	default:
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrFailedToParse, "$setField requires 'input' to evaluate to type Object",
		)
	}

	vv, err := d.Get("value")
	if err != nil {
		return nil, handlererrors.NewCommandErrorMsg(
			handlererrors.ErrFailedToParse, "$setField requires 'value' to be specified",
		)
	}

	v, err := EmbeddedCrudEval(vv, root)
	if err != nil {
		return nil, err
	}

	if _, missing := v.(embeddedCrudMissing); missing {
		res.Remove(name)
	} else {
		res.Set(name, v)
	}

	return res, nil
}

func embeddedCrudGetField(args any, root *types.Document) (any, error) {
	name, input, _, err := embeddedCrudFieldArgs("$getField", args, root)
	if err != nil {
		return nil, err
	}

	in, ok := input.(*types.Document)
	if !ok {
		return embeddedCrudMissing{}, nil
	}

	v, err := in.Get(name)
	if err != nil {
		return embeddedCrudMissing{}, nil
	}

	return v, nil
}

// embeddedCrudFilterExpr is $expr in a filter (handled: false with CrudOff, for FerretDB's own).
func embeddedCrudFilterExpr(doc *types.Document, expr any) (matched, handled bool, err error) {
	if embedded.CrudOff {
		return false, false, nil
	}

	v, err := EmbeddedCrudEval(expr, doc)
	if err != nil {
		return false, true, err
	}

	return EmbeddedCrudTruthy(v), true, nil
}

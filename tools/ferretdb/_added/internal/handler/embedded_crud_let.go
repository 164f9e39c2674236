// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// `let` (MongoDB 5.0+: variables for the command's expressions, $$name): FerretDB refused it (NotImplemented). Each
// variable's expression is evaluated once (constants, $literal, $rand, ...), then every $$name in the command's
// expressions ($expr in its filters, update pipelines, aggregate's stages) is replaced by {$literal: value}, and
// `let` is taken out of the command (crud concern).
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudLet)
}

func embeddedCrudLet(_ context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) {
	v, err := doc.Get("let")
	if err != nil {
		return false, nil, nil
	}

	let, ok := v.(*types.Document)
	if !ok {
		return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrTypeMismatch,
			fmt.Sprintf("BSON field '%s.let' is the wrong type, expected type 'object'", call.command),
			"let",
		)
	}

	vars := map[string]any{}

	for _, name := range let.Keys() {
		if name == "" || !(name[0] >= 'a' && name[0] <= 'z') && name[0] < 0x80 {
			return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrFailedToParse,
				fmt.Sprintf("'%s' starts with an invalid character for a user variable name", name),
				"let",
			)
		}

		value, err := common.EmbeddedCrudEval(must.NotFail(let.Get(name)), types.MakeDocument(0))
		if err != nil {
			return false, nil, err
		}

		vars[name] = value
	}

	doc.Remove("let")

	sub := func(v any) any { return embeddedCrudSubstitute(v, vars) }
	inExpr := func(v any) any { return embeddedCrudSubstituteExpr(v, vars) }

	switch call.command {
	case "find", "count", "distinct":
		embeddedCrudMap(doc, "filter", inExpr)
		embeddedCrudMap(doc, "query", inExpr)
	case "findAndModify", "findandmodify":
		embeddedCrudMap(doc, "query", inExpr)

		if u, _ := doc.Get("update"); u != nil {
			if _, ok := u.(*types.Array); ok {
				embeddedCrudMap(doc, "update", sub)
			}
		}
	case "delete", "update":
		list := "deletes"
		if call.command == "update" {
			list = "updates"
		}

		lv, _ := doc.Get(list)
		if arr, ok := lv.(*types.Array); ok {
			for i := range arr.Len() {
				st, ok := must.NotFail(arr.Get(i)).(*types.Document)
				if !ok {
					continue
				}

				embeddedCrudMap(st, "q", inExpr)

				if u, _ := st.Get("u"); u != nil {
					if _, ok := u.(*types.Array); ok {
						embeddedCrudMap(st, "u", sub)
					}
				}
			}
		}
	case "aggregate":
		pv, _ := doc.Get("pipeline")
		if arr, ok := pv.(*types.Array); ok {
			for i := range arr.Len() {
				stage, ok := must.NotFail(arr.Get(i)).(*types.Document)
				if !ok || stage.Len() != 1 {
					continue
				}

				if stage.Keys()[0] == "$match" {
					embeddedCrudMap(stage, "$match", inExpr)
				} else {
					must.NoError(arr.Set(i, sub(stage)))
				}
			}
		}
	}

	return true, nil, nil
}

// embeddedCrudMap replaces doc's field key (when present) by f of it.
func embeddedCrudMap(doc *types.Document, key string, f func(any) any) {
	if v, err := doc.Get(key); err == nil {
		doc.Set(key, f(v))
	}
}

// embeddedCrudSubstituteExpr substitutes the variables inside the $expr operators of a filter.
func embeddedCrudSubstituteExpr(v any, vars map[string]any) any {
	switch v := v.(type) {
	case *types.Document:
		res := types.MakeDocument(v.Len())

		for _, k := range v.Keys() {
			val := must.NotFail(v.Get(k))

			if k == "$expr" {
				res.Set(k, embeddedCrudSubstitute(val, vars))
			} else {
				res.Set(k, embeddedCrudSubstituteExpr(val, vars))
			}
		}

		return res
	case *types.Array:
		res := types.MakeArray(v.Len())
		for i := range v.Len() {
			res.Append(embeddedCrudSubstituteExpr(must.NotFail(v.Get(i)), vars))
		}

		return res
	default:
		return v
	}
}

// embeddedCrudSubstitute substitutes the variables in an expression ($literal's argument left as it is).
func embeddedCrudSubstitute(v any, vars map[string]any) any {
	switch v := v.(type) {
	case string:
		if !strings.HasPrefix(v, "$$") {
			return v
		}

		name, rest, _ := strings.Cut(v[2:], ".")

		value, ok := vars[name]
		if !ok {
			return v
		}

		if rest != "" {
			if d, ok := value.(*types.Document); ok {
				value, _ = common.EmbeddedCrudEval("$"+rest, d)
			} else {
				value = types.Null
			}
		}

		return must.NotFail(types.NewDocument("$literal", value))
	case *types.Document:
		res := types.MakeDocument(v.Len())

		for _, k := range v.Keys() {
			val := must.NotFail(v.Get(k))
			if k != "$literal" {
				val = embeddedCrudSubstitute(val, vars)
			}

			res.Set(k, val)
		}

		return res
	case *types.Array:
		res := types.MakeArray(v.Len())
		for i := range v.Len() {
			res.Append(embeddedCrudSubstitute(must.NotFail(v.Get(i)), vars))
		}

		return res
	default:
		return v
	}
}

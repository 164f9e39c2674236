// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import (
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/handler/handlerparams"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Updates given as an aggregation pipeline (crud concern; MongoDB 4.2+): update's `u` and findAndModify's `update`
// may be an array of the stages $set / $addFields, $unset, $project, $replaceRoot and $replaceWith, whose
// expressions are those of embedded_crud_expr.go. FerretDB refused them (TypeMismatch for update, NotImplemented for
// findAndModify). The stages run on the document in Go, as FerretDB's update operators do; the result keeps the
// document's _id (changing it is ImmutableField, as MongoDB).

// embeddedCrudUpdateStages are the stages an update pipeline may have (MongoDB's list).
var embeddedCrudUpdateStages = map[string]bool{
	"$set": true, "$addFields": true, "$unset": true, "$project": true, "$replaceRoot": true, "$replaceWith": true,
}

// embeddedCrudSetUpdate reads update's `u` into u.Update or u.EmbeddedPipeline.
func embeddedCrudSetUpdate(u *Update) error {
	switch v := u.EmbeddedUpdateValue.(type) {
	case nil:
		return nil
	case *types.Document:
		u.Update = v
		return nil
	case *types.Array:
		if !embedded.CrudOff {
			if err := embeddedCrudCheckPipeline("update", v); err != nil {
				return err
			}

			u.EmbeddedPipeline = v
			u.Update = must.NotFail(types.NewDocument())

			return nil
		}
	}

	return handlererrors.NewCommandErrorMsgWithArgument(
		handlererrors.ErrTypeMismatch,
		fmt.Sprintf(
			"BSON field 'update.updates.u' is the wrong type '%s', expected type 'object'",
			handlerparams.AliasFromType(u.EmbeddedUpdateValue),
		),
		"u",
	)
}

// embeddedCrudFindAndModifyPipeline takes findAndModify's update pipeline (handled: false with CrudOff).
func embeddedCrudFindAndModifyPipeline(params *FindAndModifyParams, pipeline *types.Array) (bool, error) {
	if embedded.CrudOff {
		return false, nil
	}

	if err := embeddedCrudCheckPipeline("findAndModify", pipeline); err != nil {
		return true, err
	}

	params.Aggregation = pipeline
	params.Update = must.NotFail(types.NewDocument())

	return true, nil
}

// embeddedCrudCheckPipeline checks an update pipeline's stages before anything runs.
func embeddedCrudCheckPipeline(command string, pipeline *types.Array) error {
	for i := range pipeline.Len() {
		stage, ok := must.NotFail(pipeline.Get(i)).(*types.Document)
		if !ok || stage.Len() != 1 {
			return handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrFailedToParse,
				"A pipeline stage specification object must contain exactly one field.",
				command,
			)
		}

		name := stage.Keys()[0]
		if !embeddedCrudUpdateStages[name] {
			return handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrInvalidOptions,
				fmt.Sprintf("%s is not allowed to be used within an update", name),
				command,
			)
		}
	}

	return nil
}

// embeddedCrudUpdatePipeline runs an update pipeline on doc, in place; it says whether doc changed.
func embeddedCrudUpdatePipeline(command string, doc *types.Document, pipeline *types.Array) (bool, error) {
	cur := doc.DeepCopy()

	for i := range pipeline.Len() {
		stage := must.NotFail(pipeline.Get(i)).(*types.Document)
		name := stage.Keys()[0]
		spec := must.NotFail(stage.Get(name))

		var err error

		if cur, err = embeddedCrudStage(name, spec, cur); err != nil {
			return false, err
		}
	}

	id, _ := doc.Get("_id")
	if newID, err := cur.Get("_id"); err == nil {
		if id != nil && types.Compare(id, newID) != types.Equal {
			return false, NewUpdateError(
				handlererrors.ErrImmutableField,
				"Performing an update on the path '_id' would modify the immutable field '_id'",
				command,
			)
		}
	} else if id != nil {
		cur.Set("_id", id)
	}

	if types.Compare(doc, cur) == types.Equal && doc.Len() == cur.Len() {
		return false, nil
	}

	for _, k := range doc.Keys() {
		doc.Remove(k)
	}

	for _, k := range cur.Keys() {
		doc.Set(k, must.NotFail(cur.Get(k)))
	}

	return true, nil
}

// embeddedCrudStage runs one stage on one document.
func embeddedCrudStage(name string, spec any, doc *types.Document) (*types.Document, error) {
	switch name {
	case "$set", "$addFields":
		fields, ok := spec.(*types.Document)
		if !ok {
			return nil, handlererrors.NewCommandErrorMsg(
				handlererrors.ErrFailedToParse, fmt.Sprintf("%s specification stage must be an object", name),
			)
		}

		res := doc.DeepCopy()

		for _, k := range fields.Keys() {
			v, err := EmbeddedCrudEval(must.NotFail(fields.Get(k)), doc)
			if err != nil {
				return nil, err
			}

			if err = embeddedCrudSetPath(res, k, v); err != nil {
				return nil, err
			}
		}

		return res, nil

	case "$unset":
		var names []string

		switch s := spec.(type) {
		case string:
			names = []string{s}
		case *types.Array:
			for i := range s.Len() {
				n, ok := must.NotFail(s.Get(i)).(string)
				if !ok {
					return nil, handlererrors.NewCommandErrorMsg(
						handlererrors.ErrFailedToParse, "$unset specification must be a string or an array of strings",
					)
				}

				names = append(names, n)
			}
		default:
			return nil, handlererrors.NewCommandErrorMsg(
				handlererrors.ErrFailedToParse, "$unset specification must be a string or an array of strings",
			)
		}

		res := doc.DeepCopy()
		for _, n := range names {
			res.RemoveByPath(must.NotFail(types.NewPathFromString(n)))
		}

		return res, nil

	case "$project":
		proj, ok := spec.(*types.Document)
		if !ok {
			return nil, handlererrors.NewCommandErrorMsg(
				handlererrors.ErrFailedToParse, "$project specification must be an object",
			)
		}

		return EmbeddedCrudProject(proj, doc)

	case "$replaceRoot", "$replaceWith":
		expr := spec

		if name == "$replaceRoot" {
			d, ok := spec.(*types.Document)
			if !ok || !d.Has("newRoot") {
				return nil, handlererrors.NewCommandErrorMsg(
					handlererrors.ErrFailedToParse, "no newRoot specified for the $replaceRoot stage",
				)
			}

			expr = must.NotFail(d.Get("newRoot"))
		}

		v, err := EmbeddedCrudEval(expr, doc)
		if err != nil {
			return nil, err
		}

		res, ok := v.(*types.Document)
		if !ok {
			return nil, handlererrors.NewCommandErrorMsg(
				handlererrors.ErrorCode(40228),
				fmt.Sprintf("'newRoot' expression must evaluate to an object, but resulting value was: %v", v),
			)
		}

		return res, nil
	}

	return nil, embeddedCrudNotImplemented("the stage " + name)
}

// embeddedCrudSetPath sets a dotted path, making documents on the way (a missing value removes the field).
func embeddedCrudSetPath(doc *types.Document, path string, v any) error {
	parts := strings.Split(path, ".")
	cur := doc

	for _, p := range parts[:len(parts)-1] {
		next, err := cur.Get(p)

		d, ok := next.(*types.Document)
		if err != nil || !ok {
			d = types.MakeDocument(1)
			cur.Set(p, d)
		}

		cur = d
	}

	last := parts[len(parts)-1]
	if _, missing := v.(embeddedCrudMissing); missing {
		cur.Remove(last)
		return nil
	}

	cur.Set(last, v)

	return nil
}

// EmbeddedCrudProject is $project with inclusions, exclusions and computed fields.
func EmbeddedCrudProject(proj, doc *types.Document) (*types.Document, error) {
	plain := types.MakeDocument(proj.Len())
	computed := types.MakeDocument(0)

	for _, k := range proj.Keys() {
		v := must.NotFail(proj.Get(k))

		switch v.(type) {
		case bool, int32, int64, float64:
			plain.Set(k, v)
		default:
			computed.Set(k, v)
		}
	}

	res := doc

	if plain.Len() > 0 || computed.Len() > 0 {
		p := plain
		if computed.Len() > 0 {
			// computed fields make an inclusion projection
			p = plain.DeepCopy()
			if !p.Has("_id") {
				p.Set("_id", true)
			}

			for _, k := range computed.Keys() {
				p.Remove(k)
			}

			if p.Len() == 1 && p.Has("_id") {
				if id, _ := p.Get("_id"); !EmbeddedCrudTruthy(id) {
					p = nil
				}
			}
		}

		if p != nil && p.Len() > 0 {
			validated, inclusion, err := ValidateProjection(p)
			if err != nil {
				return nil, err
			}

			// FerretDB's projection needs an _id ($documents' documents may have none)
			in := doc
			if !doc.Has("_id") {
				in = doc.DeepCopy()
				in.Set("_id", types.Null)
			}

			if res, err = ProjectDocument(in, validated, nil, inclusion); err != nil {
				return nil, err
			}

			if !doc.Has("_id") {
				res.Remove("_id")
			}
		} else {
			res = types.MakeDocument(computed.Len())
		}
	}

	for _, k := range computed.Keys() {
		v, err := EmbeddedCrudEval(must.NotFail(computed.Get(k)), doc)
		if err != nil {
			return nil, err
		}

		if err = embeddedCrudSetPath(res, k, v); err != nil {
			return nil, err
		}
	}

	return res, nil
}

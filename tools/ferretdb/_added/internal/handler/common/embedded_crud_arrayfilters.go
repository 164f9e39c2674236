// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// arrayFilters (crud concern): the update operators' paths may hold $[<identifier>] (the elements that the array
// filter of that identifier matches) and $[] (every element). FerretDB refused arrayFilters (NotImplemented). The
// handler's hook passes them as embeddedArrayFilters (handler/embedded_crud.go), so that FerretDB alone, with the
// concern off, still refuses them. For each document, each such path is expanded into the paths of the elements
// that match, and FerretDB's update operators then run on those.

// embeddedCrudArrayFilters reads the array filters: identifier -> filter on a document {identifier: element}.
func embeddedCrudArrayFilters(command string, filters *types.Array) (map[string]*types.Document, error) {
	res := map[string]*types.Document{}

	for i := range filters.Len() {
		f, ok := must.NotFail(filters.Get(i)).(*types.Document)
		if !ok || f.Len() == 0 {
			return nil, NewUpdateError(handlererrors.ErrFailedToParse, "Cannot use an expression without a top-level field name in arrayFilters", command) //nolint:lll // for readability
		}

		var id string

		for _, k := range f.Keys() {
			name, _, _ := strings.Cut(k, ".")
			if id != "" && name != id {
				return nil, NewUpdateError(
					handlererrors.ErrFailedToParse,
					fmt.Sprintf("Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", id, name), //nolint:lll // for readability
					command,
				)
			}

			id = name
		}

		if _, dup := res[id]; dup {
			return nil, NewUpdateError(
				handlererrors.ErrFailedToParse,
				fmt.Sprintf("Found multiple array filters with the same top-level field name %s", id),
				command,
			)
		}

		res[id] = f
	}

	return res, nil
}

// embeddedCrudExpandUpdate expands the $[...] paths of an update for doc.
func embeddedCrudExpandUpdate(command string, doc, update *types.Document, filters *types.Array) (*types.Document, error) {
	byID := map[string]*types.Document{}

	if filters != nil {
		var err error
		if byID, err = embeddedCrudArrayFilters(command, filters); err != nil {
			return nil, err
		}
	}

	// every identifier used has a filter, every filter is used (whatever the document)
	used := map[string]bool{}

	for _, op := range update.Keys() {
		fields, ok := must.NotFail(update.Get(op)).(*types.Document)
		if !ok {
			continue
		}

		for _, path := range fields.Keys() {
			for _, part := range strings.Split(path, ".") {
				if !strings.HasPrefix(part, "$[") || !strings.HasSuffix(part, "]") || part == "$[]" {
					continue
				}

				id := part[2 : len(part)-1]
				if byID[id] == nil {
					return nil, NewUpdateError(
						handlererrors.ErrBadValue,
						fmt.Sprintf("No array filter found for identifier '%s' in path '%s'", id, path),
						command,
					)
				}

				used[id] = true
			}
		}
	}

	res := types.MakeDocument(update.Len())

	for _, op := range update.Keys() {
		fields, ok := must.NotFail(update.Get(op)).(*types.Document)
		if !ok {
			res.Set(op, must.NotFail(update.Get(op)))
			continue
		}

		expanded := types.MakeDocument(fields.Len())

		for _, path := range fields.Keys() {
			value := must.NotFail(fields.Get(path))

			if !strings.Contains(path, "$[") {
				expanded.Set(path, value)
				continue
			}

			paths, err := embeddedCrudExpandPath(command, doc, strings.Split(path, "."), "", byID)
			if err != nil {
				return nil, err
			}

			for _, p := range paths {
				expanded.Set(p, value)
			}
		}

		if expanded.Len() > 0 {
			res.Set(op, expanded)
		}
	}

	for id := range byID {
		if !used[id] {
			return nil, NewUpdateError(
				handlererrors.ErrFailedToParse,
				fmt.Sprintf("The array filter for identifier '%s' was not used in the update %s", id, types.FormatAnyValue(update)),
				command,
			)
		}
	}

	return res, nil
}

// embeddedCrudExpandPath expands the path parts below value (reached by prefix).
func embeddedCrudExpandPath(command string, value any, parts []string, prefix string, byID map[string]*types.Document) ([]string, error) { //nolint:lll // for readability
	join := func(p string) string {
		if prefix == "" {
			return p
		}

		return prefix + "." + p
	}

	if len(parts) == 0 {
		return []string{prefix}, nil
	}

	part := parts[0]

	if !strings.HasPrefix(part, "$[") || !strings.HasSuffix(part, "]") {
		var next any
		if d, ok := value.(*types.Document); ok {
			next, _ = d.Get(part)
		}

		if next == nil && embeddedCrudHasPositional(parts[1:]) {
			return nil, nil // nothing to update below a missing field
		}

		return embeddedCrudExpandPath(command, next, parts[1:], join(part), byID)
	}

	id := part[2 : len(part)-1]

	var filter *types.Document

	if id != "" {
		if filter = byID[id]; filter == nil {
			return nil, NewUpdateError(
				handlererrors.ErrBadValue,
				fmt.Sprintf("No array filter found for identifier '%s' in path '%s'", id, strings.Join(parts, ".")),
				command,
			)
		}

	}

	arr, ok := value.(*types.Array)
	if !ok {
		if value == nil {
			return nil, nil
		}

		return nil, NewUpdateError(
			handlererrors.ErrBadValue,
			fmt.Sprintf("The path '%s' must exist in the document in order to apply array updates.", prefix),
			command,
		)
	}

	var res []string

	for i := range arr.Len() {
		elem := must.NotFail(arr.Get(i))

		if filter != nil {
			matched, err := FilterDocument(must.NotFail(types.NewDocument(id, elem)), filter)
			if err != nil {
				return nil, err
			}

			if !matched {
				continue
			}
		}

		sub, err := embeddedCrudExpandPath(command, elem, parts[1:], join(strconv.Itoa(i)), byID)
		if err != nil {
			return nil, err
		}

		res = append(res, sub...)
	}

	return res, nil
}

// embeddedCrudHasPositional tells whether path parts hold $[...].
func embeddedCrudHasPositional(parts []string) bool {
	for _, p := range parts {
		if strings.HasPrefix(p, "$[") {
			return true
		}
	}

	return false
}

// embeddedCrudPositional tells whether an update has arrayFilters or $[...] paths.
func embeddedCrudPositional(param *Update) bool {
	if param.EmbeddedArrayFilters != nil {
		return true
	}

	for _, op := range param.Update.Keys() {
		if fields, ok := must.NotFail(param.Update.Get(op)).(*types.Document); ok {
			for _, path := range fields.Keys() {
				if strings.Contains(path, "$[") {
					return true
				}
			}
		}
	}

	return false
}

// embeddedCrudUpdateOperators runs update operators whose paths are expanded for doc.
func embeddedCrudUpdateOperators(command string, doc *types.Document, param *Update, upsert bool) (bool, error) {
	update, err := embeddedCrudExpandUpdate(command, doc, param.Update, param.EmbeddedArrayFilters)
	if err != nil {
		return false, err
	}

	if update.Len() == 0 {
		return false, nil
	}

	return processUpdateOperator(command, doc, update, upsert)
}

// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handlerparams

import (
	"reflect"
	"strings"
	"sync"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedTagsOff is true when FERRETDB_EMBEDDED_READPATH=off: every tag is parsed at every use, as FerretDB does.
var embeddedTagsOff = embedded.ReadpathOff

// embeddedTag is one struct field's `ferretdb` tag, parsed.
type embeddedTag struct {
	list []string    // the tag split at commas: the key, then the options
	opts *tagOptions // the options (shared: read only)
	err  error       // the error of a field without a tag
}

// embeddedTagCache holds the parsed tags of each params struct type: ExtractParams looked up and split every field's
// tag for every key of every command (and again for every field when checking the required ones), a tenth of the
// CPU of a find by id. A type's tags never change.
var embeddedTagCache sync.Map // reflect.Type -> []embeddedTag

// embeddedTagsOf returns the parsed tags of t's fields, in order.
func embeddedTagsOf(t reflect.Type) []embeddedTag {
	if tags, ok := embeddedTagCache.Load(t); ok {
		return tags.([]embeddedTag)
	}

	tags := make([]embeddedTag, t.NumField())

	for i := range tags {
		field := t.Field(i)
		tag := field.Tag.Get("ferretdb")
		list := strings.Split(tag, ",")

		tags[i] = embeddedTag{list: list, opts: tagOptionsFromList(list[1:])}
		if tag == "" {
			tags[i].err = lazyerrors.Errorf("no tag provided for %s", field.Name)
		}
	}

	embeddedTagCache.Store(t, tags)

	return tags
}

// embeddedFieldTag returns the key and options of the tag of t's field i (checkAllRequiredFieldsPopulated's reading).
func embeddedFieldTag(t reflect.Type, i int) ([]string, *tagOptions) {
	if embeddedTagsOff {
		list := strings.Split(t.Field(i).Tag.Get("ferretdb"), ",")
		return list, tagOptionsFromList(list[1:])
	}

	tag := embeddedTagsOf(t)[i]

	return tag.list, tag.opts
}

// embeddedLookupFieldTag is lookupFieldTag on the parsed tags: the first field whose key is key (an error at a field
// without a tag before it), or nil.
func embeddedLookupFieldTag(key string, t reflect.Type) (*int, *tagOptions, error) {
	for i, tag := range embeddedTagsOf(t) {
		if tag.err != nil {
			return nil, nil, tag.err
		}

		if tag.list[0] == key {
			return &i, tag.opts, nil
		}
	}

	return nil, nil, nil
}

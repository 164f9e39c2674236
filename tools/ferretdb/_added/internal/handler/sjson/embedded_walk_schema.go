// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// The schemas (`$s`) of stored documents for the walk (embedded_walk.go): each distinct text read once, by
// encoding/json as Unmarshal reads it, and kept.

// schemaOf is a schema and what the walk looks up in it.
type schemaOf struct {
	sch *schema
	// elems: each object's elements in the order of its keys (its Properties, looked up once).
	elems map[*schema][]*elem
	// inOrder: no object of the schema repeats a key (and the document's keys have no `$s`), so a document whose
	// fields come in the schema's order has each once, and the walk's fast path reads it.
	inOrder bool
}

// add looks up the elements of sch and of the objects in it.
func (s *schemaOf) add(sch *schema) {
	if sch == nil {
		return
	}

	elems := make([]*elem, len(sch.Keys))

	for i, k := range sch.Keys {
		elems[i] = sch.Properties[k]
		s.inOrder = s.inOrder && !slices.Contains(sch.Keys[:i], k)
	}

	s.elems[sch] = elems

	var add func(e *elem)
	add = func(e *elem) {
		if e != nil {
			s.add(e.Schema)

			for _, item := range e.Items {
				add(item)
			}
		}
	}

	for _, e := range sch.Properties {
		add(e)
	}
}

// readSchema reads the `$s` value at t.pos.
func (t *jsonText) readSchema() (*schemaOf, error) {
	if recent := recentSchemaAt(t.data[t.pos:]); recent != nil {
		t.pos += len(recent.text)
		return recent.schemaOf, nil
	}

	start := t.pos
	if err := t.skipValue(); err != nil {
		return nil, err
	}

	text := t.data[start:t.pos]

	s, err := cachedSchema(text)
	if err != nil {
		return nil, err
	}

	rememberSchema(text, s)

	return s, nil
}

// Schemas by their JSON text: the documents of a collection mostly share one (every project has the same fields of
// the same types). A schema is never changed once read, so one may serve several walks at once.
var (
	schemaCacheM sync.RWMutex
	schemaCache  = map[string]*schemaOf{}
)

// schemaCacheMax bounds the cache (collections whose documents vary in shape would otherwise fill it).
const schemaCacheMax = 4096

// cachedSchema returns the schema of a `$s` value's JSON text.
func cachedSchema(text []byte) (*schemaOf, error) {
	schemaCacheM.RLock()
	s := schemaCache[string(text)] // no copy of text for the lookup
	schemaCacheM.RUnlock()

	if s != nil {
		return s, nil
	}

	s = &schemaOf{sch: new(schema), elems: map[*schema][]*elem{}, inOrder: true}

	// As Unmarshal reads it.
	r := bytes.NewReader(text)
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()

	if err := dec.Decode(s.sch); err != nil {
		return nil, lazyerrors.Error(err)
	}

	if err := checkConsumed(dec, r); err != nil {
		return nil, lazyerrors.Error(err)
	}

	s.add(s.sch)
	s.inOrder = s.inOrder && !slices.Contains(s.sch.Keys, "$s") // Unmarshal reads no field of that name

	schemaCacheM.Lock()
	if len(schemaCache) < schemaCacheMax {
		schemaCache[string(text)] = s
	}
	schemaCacheM.Unlock()

	return s, nil
}

// The schemas read last (a few collections are read at once: a page's projects, then their teachers). A document
// whose `$s` text starts with one of these texts has that schema: a JSON value ends where its own bytes close it, so
// the value is exactly that text. Comparing bytes spares scanning the value to find its end and hashing its text
// for the cache, for most documents.
var (
	recentSchemas [4]atomic.Pointer[recentSchema]
	recentNext    atomic.Uint32
)

// recentSchema is a schema and its text (a copy: the text read is the stored row's, read in place).
type recentSchema struct {
	text []byte
	*schemaOf
}

func recentSchemaAt(data []byte) *recentSchema {
	for i := range recentSchemas {
		if recent := recentSchemas[i].Load(); recent != nil && bytes.HasPrefix(data, recent.text) {
			return recent
		}
	}

	return nil
}

func rememberSchema(text []byte, s *schemaOf) {
	recent := &recentSchema{text: bytes.Clone(text), schemaOf: s}
	recentSchemas[recentNext.Add(1)%uint32(len(recentSchemas))].Store(recent)
}

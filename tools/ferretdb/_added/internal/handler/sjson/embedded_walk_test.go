// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// The walk's two users against FerretDB's own functions: UnmarshalOnePass must return what Unmarshal returns, and
// AppendBSON must write what Unmarshal + bson.FromDocument + Encode write; where Unmarshal fails, both must fail.

// ferretDB is what FerretDB's own path makes of data: the document, and its BSON (of the fields keep keeps).
type ferretDB struct {
	doc  *types.Document
	kept *types.Document // doc without the fields keep does not keep
	bson []byte
	err  error
}

func ferretDBOf(data []byte, keep func(string) bool) (res ferretDB) {
	defer func() {
		if p := recover(); p != nil {
			res = ferretDB{err: fmt.Errorf("panic: %v", p)}
		}
	}()

	if res.doc, res.err = Unmarshal(data); res.err != nil {
		return res
	}

	res.kept = res.doc.DeepCopy()

	for _, name := range res.kept.Keys() {
		if keep != nil && !keep(name) {
			res.kept.Remove(name)
		}
	}

	wdoc := must.NotFail(bson.FromDocument(res.kept))
	res.bson = must.NotFail(wdoc.Encode())

	return res
}

// holdsNUL reports whether a field name or a regular expression of d holds a NUL byte: BSON cannot carry it, and
// AppendBSON refuses it (FerretDB's encoder writes it, making a broken document).
func holdsNUL(v any) bool {
	switch v := v.(type) {
	case *types.Document:
		for _, k := range v.Keys() {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(must.NotFail(v.Get(k))) {
				return true
			}
		}
	case *types.Array:
		for i := range v.Len() {
			if holdsNUL(must.NotFail(v.Get(i))) {
				return true
			}
		}
	case types.Regex:
		return strings.IndexByte(v.Pattern+v.Options, 0) >= 0
	}

	return false
}

// checkSame compares both users of the walk with FerretDB's own functions on data.
func checkSame(t *testing.T, data []byte, keep func(string) bool) {
	t.Helper()

	want := ferretDBOf(data, keep)

	got, err := UnmarshalOnePass(data)

	switch {
	case want.err != nil && err == nil:
		t.Fatalf("UnmarshalOnePass(%q) = %v, but Unmarshal fails: %v", data, got, want.err)
	case want.err == nil && err != nil:
		t.Fatalf("UnmarshalOnePass(%q) fails: %v; Unmarshal gives %v", data, err, want.doc)
	case want.err == nil && !reflect.DeepEqual(got, want.doc):
		t.Fatalf("UnmarshalOnePass(%q) = %#v, Unmarshal gives %#v", data, got, want.doc)
	}

	prefix := []byte("prefix")
	dst, err := AppendBSON(bytes.Clone(prefix), data, keep)

	switch {
	case !bytes.HasPrefix(dst, prefix):
		t.Fatalf("AppendBSON(%q) lost what dst held: %q", data, dst)
	case want.err != nil && err == nil:
		t.Fatalf("AppendBSON(%q) = %x, but Unmarshal fails: %v", data, dst, want.err)
	case want.err != nil:
		return
	case holdsNUL(want.kept):
		if err == nil {
			t.Fatalf("AppendBSON(%q) wrote a NUL byte inside a name or a regular expression", data)
		}
	case err != nil:
		t.Fatalf("AppendBSON(%q) fails: %v; FerretDB writes %x", data, err, want.bson)
	case !bytes.Equal(dst[len(prefix):], want.bson):
		t.Fatalf("AppendBSON(%q) = %x, FerretDB writes %x", data, dst[len(prefix):], want.bson)
	}
}

// gen makes random documents of every type sjson stores.
type gen struct{ r *rand.Rand }

func pick[T any](g *gen, from ...T) T { return from[g.r.IntN(len(from))] }

func (g *gen) name() string {
	if g.r.IntN(4) > 0 {
		return pick(g, "a", "b", "_id", "name", "teacher_id", "x1", "long_field_name_of_a_project")
	}

	return pick(g, "", " ", "é", "ключ", "<k>", "a&b", "a.b", "$s", "$k", "p", "t", "line\u2028sep", "emoji 😀",
		`q"uote`, `back\slash`, "new\nline", "tab\t", "nul\x00", "\x7f", "invalid \xff", "\xed\xa0\x80")
}

func (g *gen) str() string {
	if g.r.IntN(3) > 0 {
		return pick(g, "", "a", "Seeded project 12345", "in_progress", "2026-01-01", "bench", "0123456789abcdef01234567")
	}

	return pick(g, `quote " and \ backslash`, "tab\tnewline\n\r", "nul\x00byte", "<html> & co", "e\u0301 é",
		"emoji 😀 𝄞", "line\u2028sep\u2029", "\x01\x1f control", "日本語", "invalid \xff utf8", "\xed\xa0\x80",
		"/slash", strings.Repeat("long text ", 40))
}

func (g *gen) value(depth int) any {
	n := 13
	if depth >= 3 {
		n = 11
	}

	switch g.r.IntN(n) {
	case 0:
		return g.str()
	case 1:
		return pick(g, int32(0), int32(-1), int32(7), math.MinInt32, math.MaxInt32, g.r.Int32()-g.r.Int32())
	case 2:
		return pick(g, int64(0), int64(1)<<53+1, -(int64(1)<<53)-1, math.MinInt64, math.MaxInt64, g.r.Int64()-g.r.Int64())
	case 3:
		return pick(g, math.Copysign(0, -1), 0, 1.5, -2.25, 0.1, 1e21, 1e-7, 1e300, 5e-324, math.MaxFloat64,
			1234567890123456768.0, math.Ldexp(1, 63), math.Ldexp(1, 64), -math.Ldexp(1, 53), float64(g.r.Int64()),
			g.r.NormFloat64()*1e6, float64(g.r.Int32()))
	case 4:
		var id types.ObjectID
		for i := range id {
			id[i] = byte(g.r.UintN(256))
		}

		return id
	case 5:
		return g.r.IntN(2) == 0
	case 6:
		return time.UnixMilli(g.r.Int64N(2e13) - 1e13)
	case 7:
		return types.Null
	case 8:
		b := make([]byte, g.r.IntN(20))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}

		return types.Binary{B: b, Subtype: pick[types.BinarySubtype](g, 0, 1, 2, 3, 4, 5, 6, 0x7f, 0x80, 0xff)}
	case 9:
		return types.Regex{Pattern: g.str(), Options: pick(g, "", "i", "imsx", "u")}
	case 10:
		return types.Timestamp(g.r.Uint64())
	case 11:
		return g.doc(depth + 1)
	default:
		a := types.MakeArray(0)
		for range g.r.IntN(5) {
			a.Append(g.value(depth + 1))
		}

		return a
	}
}

func (g *gen) doc(depth int) *types.Document {
	d := must.NotFail(types.NewDocument())
	for range g.r.IntN(6) {
		d.Set(g.name(), g.value(depth))
	}

	return d
}

// keepOf keeps a random part of d's top-level fields (nil: all of them).
func (g *gen) keepOf(d *types.Document) func(string) bool {
	if g.r.IntN(3) == 0 {
		return nil
	}

	kept := map[string]bool{"absent": true}
	for _, k := range d.Keys() {
		kept[k] = g.r.IntN(2) == 0
	}

	return func(name string) bool { return kept[name] }
}

// checkRandom compares both users of the walk with FerretDB's functions on n random documents, each written by
// Marshal and then changed by change (nil: left as written).
func checkRandom(t *testing.T, seed uint64, n int, change func(g *gen, data []byte) []byte) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed+1))}

	for range n {
		d := g.doc(0)
		data := must.NotFail(Marshal(d))

		if change != nil {
			data = change(g, data)
		}

		checkSame(t, data, g.keepOf(d))
	}
}

func TestEmbeddedWalkRandomDocuments(t *testing.T) {
	checkRandom(t, 1, 20000, nil)
}

// mutate breaks data in one random way (or leaves it readable in another way: a type changed to one that reads the
// same text, a field repeated).
func (g *gen) mutate(data []byte) []byte {
	b := bytes.Clone(data)
	i := g.r.IntN(len(b))
	some := pick(g, `{`, `}`, `[`, `]`, `:`, `,`, `"`, `\`, ` `, "\n", `0`, `1`, `-`, `+`, `.`, `e`, `E`, `t`, `n`,
		`u`, `x`, "\x00", "\xff", `null`, `true`, `"$s"`, `,"a":1`, `\u0000`, `\ud800`)

	switch g.r.IntN(8) {
	case 0:
		return slices.Delete(b, i, i+1)
	case 1:
		return slices.Insert(b, i, []byte(some)...)
	case 2:
		return slices.Replace(b, i, i+1, []byte(some)...)
	case 3:
		return b[:i]
	case 4:
		return append(b, some...)
	case 5:
		j := i + g.r.IntN(len(b)-i)
		return slices.Insert(b, g.r.IntN(len(b)), b[i:j]...)
	default:
		names := []string{"object", "array", "double", "string", "binData", "objectId", "bool", "date", "null", "regex",
			"int", "timestamp", "long", "decimal"}
		from := `"t":"` + pick(g, names...) + `"`
		to := `"t":"` + pick(g, names...) + `"`

		return bytes.Replace(b, []byte(from), []byte(to), 1+g.r.IntN(2))
	}
}

func TestEmbeddedWalkMalformed(t *testing.T) {
	checkRandom(t, 3, 40000, func(g *gen, data []byte) []byte {
		for range 1 + g.r.IntN(3) {
			if len(data) > 0 {
				data = g.mutate(data)
			}
		}

		return data
	})
}

// shuffle rewrites the JSON value v with its objects' fields in another order, now and then one of them repeated
// (with its own value or another field's) and white space between the tokens: what Unmarshal reads the same, or reads
// with the repeated field's last value.
func (g *gen) shuffle(v json.RawMessage) []byte {
	space := func() string { return pick(g, "", "", "", " ", "\n\t ") }

	dec := json.NewDecoder(bytes.NewReader(v))
	tok := must.NotFail(dec.Token())

	var b bytes.Buffer

	switch tok {
	case json.Delim('{'):
		var names []string
		var values []json.RawMessage

		for dec.More() {
			names = append(names, must.NotFail(dec.Token()).(string))

			var value json.RawMessage
			must.NoError(dec.Decode(&value))
			values = append(values, g.shuffle(value))
		}

		order := g.r.Perm(len(names))
		if len(names) > 0 && g.r.IntN(4) == 0 {
			order = append(order, g.r.IntN(len(names))) // a field repeated
		}

		b.WriteString("{" + space())

		for i, o := range order {
			if i > 0 {
				b.WriteString("," + space())
			}

			value := values[o]
			if i == len(names) && g.r.IntN(2) == 0 {
				value = values[g.r.IntN(len(values))] // with another field's value
			}

			b.Write(must.NotFail(json.Marshal(names[o])))
			b.WriteString(space() + ":" + space())
			b.Write(value)
		}

		b.WriteString(space() + "}")

	case json.Delim('['):
		b.WriteString("[" + space())

		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteString("," + space())
			}

			var value json.RawMessage
			must.NoError(dec.Decode(&value))
			b.Write(g.shuffle(value))
		}

		b.WriteString(space() + "]")

	default:
		b.Write(v)
	}

	return b.Bytes()
}

func TestEmbeddedWalkShuffled(t *testing.T) {
	checkRandom(t, 5, 10000, func(g *gen, data []byte) []byte {
		if !json.Valid(data) {
			return data // a top-level name Marshal does not escape
		}

		return g.shuffle(data)
	})
}

func TestEmbeddedWalkCases(t *testing.T) {
	const a = `{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`
	const ab = `{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","b"]}`

	valueAs := func(typ, value string) string {
		return `{"$s":{"p":{"a":{"t":"` + typ + `"}},"$k":["a"]},"a":` + value + `}`
	}

	cases := []string{
		a, " " + a, a + " ", a + "\n", "\t" + a, a + "x", a + "{}",
		`{ "$s" : { "p" : { "a" : { "t" : "int" } } , "$k" : [ "a" ] } , "a" : 1 }`,
		`{"a":1,"$s":{"p":{"a":{"t":"int"}},"$k":["a"]}}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,"a":2}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":"x","a":2}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":2,"a":"x"}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,"$s":{"p":{"a":{"t":"long"}},"$k":["a"]}}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"$s":{"p":{"a":{"t":"long"}},"$k":["a"]},"a":1}`,
		`{"$s":` + ab + `,"b":2,"a":1}`,
		`{"$s":` + ab + `,"a":1}`,
		`{"$s":` + ab + `,"a":1,"b":2,"c":3}`,
		`{"$s":` + ab + `,"a":1,"c":3}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a","a"]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a","a"]},"a":1,"a":2}`,
		`{"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]},"a":{}}`,
		`{"a":{},"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]}}`,
		`{"a":{"b":2,"a":1},"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]}}`,
		`{"$s":{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","a"]},"a":1,"b":2}`,
		`{"$s":{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","a"]},"a":1,"b":"x"}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"],"p":{"a":{"t":"long"}}},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int","t":"long"}},"$k":["a"]},"a":1}`,
		`{"$s":null}`, `{"$s":{}}`, `{"$s":{"p":{},"$k":[]}}`, `{"$s":{"p":null,"$k":null}}`, `{"$s":[]}`, `{"$s":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":[]}}`, `{"$s":{"$k":["a"]},"a":1}`, `{"$s":{"$k":["a"]},"a":null}`,
		`{"$s":{"P":{"a":{"T":"int"}},"$K":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int","x":1}},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"],"x":1},"a":1}`,
		`{"$s":{"p":{"a":null},"$k":["a"]},"a":null}`, `{"$s":{"p":{"a":null},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"object"}},"$k":["a"]},"a":{}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":{}}},"$k":["a"]},"a":{}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":{}}},"$k":["a"]},"a":{"b":1}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":null}},"$k":["a"]},"a":{}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]},"a":{"b":2,"a":1}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]},"a":{"a":1,"b":2,"a":3}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]},"a":{"a":1,"b":2,"$s":3}}`,
		`{"$s":{"p":{"a":{"t":"object","$s":` + ab + `}},"$k":["a"]},"a":[1,2]}`,
		`{"$s":{"p":{"a":{"t":"array"}},"$k":["a"]},"a":[]}`,
		`{"$s":{"p":{"a":{"t":"array","i":[]}},"$k":["a"]},"a":[]}`,
		`{"$s":{"p":{"a":{"t":"array","i":null}},"$k":["a"]},"a":[]}`,
		`{"$s":{"p":{"a":{"t":"array","i":[null,{"t":"int"}]}},"$k":["a"]},"a":[null,1]}`,
		`{"$s":{"p":{"a":{"t":"array","i":[null]}},"$k":["a"]},"a":[1]}`,
		`{"$s":{"p":{"a":{"t":"array","i":[{"t":"int"}]}},"$k":["a"]},"a":[1,2]}`,
		`{"$s":{"p":{"a":{"t":"array","i":[{"t":"int"}]}},"$k":["a"]},"a":{"0":1}}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":"AQ\nI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":"AQ\u003d\u003d"}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":"AQI"}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":""}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":[1,2]}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":[]}`,
		`{"$s":{"p":{"a":{"t":"binData","s":0}},"$k":["a"]},"a":[256]}`,
		`{"$s":{"p":{"a":{"t":"binData","s":128}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":256}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":-1}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":"0"}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData","s":1.0}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"binData"}},"$k":["a"]},"a":"AQI="}`,
		`{"$s":{"p":{"a":{"t":"regex","o":"i"}},"$k":["a"]},"a":"^a"}`,
		`{"$s":{"p":{"a":{"t":"regex"}},"$k":["a"]},"a":"^a"}`,
		`{"$s":{"p":{"a":{"t":"regex","o":null}},"$k":["a"]},"a":"^a"}`,
		`{"$s":{"p":{"a":{"t":"regex","o":"\u0000"}},"$k":["a"]},"a":"^a"}`,
		`{"$s":{"p":{"a":{"t":"regex","o":1}},"$k":["a"]},"a":"^a"}`,
		`{"$s":{"p":{"a":{"t":1}},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"decimal"}},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{}},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"a":{}},"$k":["a"]},"a":null}`,
		valueAs("null", "null"), valueAs("null", "1"),
		valueAs("int", "-0"), valueAs("int", "01"), valueAs("int", "+1"), valueAs("int", "1."), valueAs("int", ".5"),
		valueAs("int", "-"), valueAs("int", "1e2"), valueAs("int", "1.0"), valueAs("int", "2147483648"),
		valueAs("int", "-2147483648"), valueAs("int", `"1"`), valueAs("int", "true"), valueAs("int", "1 "),
		valueAs("long", "9007199254740993"), valueAs("long", "-9223372036854775808"),
		valueAs("long", "9223372036854775808"), valueAs("long", "1E2"), valueAs("long", "0x10"),
		valueAs("double", "-0"), valueAs("double", "-0.0"), valueAs("double", "1E400"), valueAs("double", "1e-400"),
		valueAs("double", "1e+2"), valueAs("double", "1e"), valueAs("double", "1e+"), valueAs("double", "00"),
		valueAs("double", "1234567890123456800"), valueAs("double", "Infinity"), valueAs("double", "NaN"),
		valueAs("double", "-Infinity"), valueAs("double", "1_0"), valueAs("double", "0x1p3"), valueAs("double", `"1"`),
		valueAs("date", "1.5"), valueAs("date", "-62135596800000"), valueAs("date", "1e3"),
		valueAs("timestamp", "-1"), valueAs("timestamp", "18446744073709551615"),
		valueAs("timestamp", "18446744073709551616"),
		valueAs("objectId", `"0123456789abcdef01234567"`), valueAs("objectId", `"0123456789ABCDEF01234567"`),
		valueAs("objectId", `"0123456789abcdef0123456"`), valueAs("objectId", `"0123456789abcdef012345678"`),
		valueAs("objectId", `"0123456789abcdef0123456g"`), valueAs("objectId", `"0123456789abcdef01234\u0035"`),
		valueAs("objectId", "1"),
		valueAs("bool", "true"), valueAs("bool", "false"), valueAs("bool", "tru"), valueAs("bool", "truex"),
		valueAs("bool", "1"), valueAs("bool", `"true"`), valueAs("int", "nul"), valueAs("int", "nulll"),
		valueAs("string", `"\u00e9"`), valueAs("string", `"\ud83d\ude00"`), valueAs("string", `"\ud800"`),
		valueAs("string", `"\ud800\u0041"`), valueAs("string", `"\ud800\ud800"`), valueAs("string", `"\udc00"`),
		valueAs("string", `"\x"`), valueAs("string", `"\'"`), valueAs("string", `"\/\b\f\n\r\t\"\\"`),
		valueAs("string", `"\u12"`), valueAs("string", `"\u12g4"`), valueAs("string", `"\U0041"`),
		valueAs("string", "\"raw\ttab\""), valueAs("string", "\"raw\x00nul\""), valueAs("string", "\"raw\x7fdel\""),
		valueAs("string", "\"\xff\""), valueAs("string", "\"\xed\xa0\x80\""), valueAs("string", "\"\xf0\x9f\x98\""),
		valueAs("string", "\"\xc3\xa9\""), valueAs("string", `"unterminated`), valueAs("string", `"a" "b"`),
		valueAs("string", "1"), valueAs("string", `"<\u003e\u0026"`),
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"\u0061":1}`,
		`{"\u0024s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`,
		`{"$s":{"p":{"\u0061":{"t":"int"}},"$k":["\u0061"]},"a":1}`,
		"{\"$s\":{\"p\":{\"\xff\":{\"t\":\"int\"}},\"$k\":[\"\xff\"]},\"\xff\":1}",
		"{\"$s\":{\"p\":{\"\xff\":{\"t\":\"int\"}},\"$k\":[\"\xff\"]},\"\\ufffd\":1}",
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]} "a":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a" 1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},a:1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},1:1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"],},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a",]},"a":1}`,
		`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1`,
		`[]`, `null`, `1`, `""`, ``, ` `, `{`, `{}`, `{"a":1}`,
	}

	for _, data := range cases {
		checkSame(t, []byte(data), nil)
		checkSame(t, []byte(data), func(string) bool { return false })
	}
}

// TestEmbeddedWalkConcurrent reads documents of many schemas from several goroutines at once (the walks, their
// buffers and the schema caches are shared between them).
func TestEmbeddedWalkConcurrent(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(7, 8))}

	type doc struct {
		data []byte
		want ferretDB
	}

	var docs []doc

	for len(docs) < 200 {
		d := doc{data: must.NotFail(Marshal(g.doc(0)))}
		if d.want = ferretDBOf(d.data, nil); d.want.err == nil && !holdsNUL(d.want.kept) {
			docs = append(docs, d)
		}
	}

	var wg sync.WaitGroup

	for w := range 8 {
		wg.Add(1)

		go func() {
			defer wg.Done()

			for i := range 2000 {
				d := docs[(i*(w+1))%len(docs)]

				got, err := AppendBSON(nil, d.data, nil)
				if err != nil || !bytes.Equal(got, d.want.bson) {
					t.Errorf("AppendBSON(%q) = %x, %v; FerretDB writes %x", d.data, got, err, d.want.bson)
					return
				}
			}
		}()
	}

	wg.Wait()
}

// projectJSON is a project as the service stores it (bench/bench-database.ts's fields, one of them absent from the
// benchmark's seeding added, and a description with characters JSON escapes).
func projectJSON(tb testing.TB, id int32) []byte {
	at := time.UnixMilli(1767225600000)
	d := must.NotFail(types.NewDocument(
		"_id", fmt.Sprint(id),
		"project_id", id,
		"project_name", fmt.Sprintf("Seeded project %d", id),
		"name_key", fmt.Sprintf("seeded project %d", id),
		"project_desc", "Plan the shortest picking routes through a warehouse floor & its docks.",
		"company_id", int32(100+id%10),
		"project_status", "in_progress",
		"project_url", types.Null,
		"start_date", "2026-01-01",
		"end_date", "2026-06-30",
		"teacher_id", int32(1+id%200),
		"revision", int32(1),
		"created_by", "bench",
		"created_at", at,
		"updated_at", at,
		"change_seq", int64(id),
	))

	data, err := Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}

	return data
}

// pageFields are the fields the service asks for a page of projects (bench/cpu-per-request.ts).
func pageFields(name string) bool {
	switch name {
	case "_id", "project_id", "project_name", "project_status", "start_date", "end_date", "teacher_id":
		return true
	}

	return false
}

func TestEmbeddedWalkProject(t *testing.T) {
	checkSame(t, projectJSON(t, 12345), nil)
	checkSame(t, projectJSON(t, 12345), pageFields)
}

func BenchmarkEmbeddedAppendBSON(b *testing.B) {
	data := projectJSON(b, 12345)

	for _, bc := range []struct {
		name string
		keep func(string) bool
	}{{"all", nil}, {"page", pageFields}} {
		b.Run(bc.name, func(b *testing.B) {
			var dst []byte

			b.ReportAllocs()

			for b.Loop() {
				var err error
				if dst, err = AppendBSON(dst[:0], data, bc.keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEmbeddedUnmarshalOnePass(b *testing.B) {
	data := projectJSON(b, 12345)

	b.ReportAllocs()

	for b.Loop() {
		if _, err := UnmarshalOnePass(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbeddedFerretDB is FerretDB's own path for the same document, for comparison: Unmarshal alone (what
// UnmarshalOnePass replaces), and with the conversion to BSON (what AppendBSON replaces).
func BenchmarkEmbeddedFerretDB(b *testing.B) {
	data := projectJSON(b, 12345)

	for _, encode := range []bool{false, true} {
		b.Run(map[bool]string{false: "Unmarshal", true: "Unmarshal+Encode"}[encode], func(b *testing.B) {
			b.ReportAllocs()

			for b.Loop() {
				d, err := Unmarshal(data)
				if err != nil {
					b.Fatal(err)
				}

				if encode {
					must.NotFail(must.NotFail(bson.FromDocument(d)).Encode())
				}
			}
		})
	}
}

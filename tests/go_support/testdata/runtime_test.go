// Tests of the runtime's internals, run inside a generated package's internal/toolgen (the
// acceptance tests copy this file there).
package toolgen

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPatternsMatchAsToolgensPythonRuntimeDoes reads cases (pattern, text, whether toolgen's
// Python runtime matches) from the file $TOOLGEN_PATTERN_CASES.
func TestPatternsMatchAsToolgensPythonRuntimeDoes(t *testing.T) {
	path := os.Getenv("TOOLGEN_PATTERN_CASES")
	if path == "" {
		t.Skip("TOOLGEN_PATTERN_CASES names no file of cases")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Pattern string `json:"pattern"`
		Text    string `json:"text"`
		Matches bool   `json:"matches"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		re, err := ecmaRegexp(c.Pattern)
		if err != nil {
			t.Errorf("%q does not compile: %v", c.Pattern, err)
			continue
		}
		if got := re.MatchString(c.Text); got != c.Matches {
			t.Errorf("%q on %q: matched %v, Python's runtime %v", c.Pattern, c.Text, got, c.Matches)
		}
	}
	if len(cases) == 0 {
		t.Error("no cases")
	}
}

func TestNullableKeepsAbsentNullAndAValueApart(t *testing.T) {
	type member struct {
		Note Nullable[string] `json:"note,omitzero"`
	}
	for _, text := range []string{`{}`, `{"note":null}`, `{"note":"x"}`, `{"note":""}`} {
		var m member
		if err := Decode([]byte(text), &m); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		again, err := json.Marshal(m)
		if err != nil || string(again) != text {
			t.Errorf("%s came back as %s (%v)", text, again, err)
		}
	}
}

func TestTheClientTakesTheServersOwnNumbersWhenTheTextMeansTheSame(t *testing.T) {
	text := `{"n":9007199254740993}` // 2^53+1: a float64 rounds it
	var structured any               // as the SDK's client reads structuredContent
	if err := json.Unmarshal([]byte(text), &structured); err != nil {
		t.Fatal(err)
	}
	if got := string(exact(structured, text)); got != text {
		t.Errorf("got %s, want %s", got, text)
	}
	if got := string(exact(structured, `{"n":1}`)); got == `{"n":1}` {
		t.Errorf("took a text that says something else than structuredContent: %s", got)
	}
}

func TestAToolWithoutOutputSchemaSendsWhatItReturnsAsText(t *testing.T) {
	image := &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}
	cases := []struct {
		returned any
		want     string // the result's content as JSON
	}{
		{nil, `[]`},
		{"hello <b>", `[{"type":"text","text":"hello <b>"}]`},
		{map[string]any{"a": "<b>"}, `[{"type":"text","text":"{\"a\":\"<b>\"}"}]`},
		{[]mcp.Content{image}, `[{"type":"image","mimeType":"image/png","data":"AQ=="}]`},
	}
	for _, c := range cases {
		result, err := unstructured(c.returned)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := Encode(result.Content)
		var gotValue, wantValue any
		_ = json.Unmarshal(got, &gotValue)
		_ = json.Unmarshal([]byte(c.want), &wantValue)
		if !sameJSON(gotValue, wantValue) || result.IsError {
			t.Errorf("%v: content %s (isError %v), want %s", c.returned, got, result.IsError, c.want)
		}
	}
}

func TestIntegersWithAFractionOrAnExponentAreReadAsIntegers(t *testing.T) {
	data := []byte(`{"a":1.0,"b":[1e3,2.5,-4.00,7],"c":"1.0","d":{"e":1E2},"f":1e999999}`)
	value, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !integral(value, data) {
		t.Fatal("nothing rewritten")
	}
	got, _ := json.Marshal(value)
	want := `{"a":1,"b":[1000,2.5,-4,7],"c":"1.0","d":{"e":100},"f":1e999999}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	plain := []byte(`{"a":1,"b":"x"}`)
	value, _ = parse(plain)
	if integral(value, plain) {
		t.Error("rewrote a value without fractions or exponents")
	}
}

func TestAUnionReadsTheFirstBranchAValueReadsAsAndRefusesAValueOfNone(t *testing.T) {
	untagged := []Branch[any]{
		BranchOf("", func(b int64) any { return b }),
		BranchOf("", func(b float64) any { return b }),
		BranchOf("", func(b string) any { return b }),
	}
	var value any
	cases := []struct {
		text string
		want any
	}{{`3`, int64(3)}, {`2.5`, 2.5}, {`"x"`, "x"}}
	for _, c := range cases {
		if err := DecodeUnion([]byte(c.text), &value, "", untagged...); err != nil || value != c.want {
			t.Errorf("%s: %v %v", c.text, value, err)
		}
	}
	for _, text := range []string{`true`, `{}`} {
		if err := DecodeUnion([]byte(text), &value, "", untagged...); err == nil {
			t.Errorf("%s was read as %v", text, value)
		}
	}
	type circle struct {
		Kind   string  `json:"kind"`
		Radius float64 `json:"radius"`
	}
	tagged := []Branch[any]{
		BranchOf("circle", func(b circle) any { return b }),
		BranchOf("rect", func(b map[string]any) any { return b }),
	}
	if err := DecodeUnion([]byte(`{"kind":"circle","radius":1}`), &value, "kind", tagged...); err != nil || value != (circle{"circle", 1}) {
		t.Errorf("circle: %v %v", value, err)
	}
	for _, text := range []string{`{"kind":"square"}`, `{"radius":1}`, `{"kind":7}`, `[]`} {
		if err := DecodeUnion([]byte(text), &value, "kind", tagged...); err == nil {
			t.Errorf("%s was read as %v", text, value)
		}
	}
	if _, err := EncodeUnion(nil); err == nil {
		t.Error("a union holding nothing was written")
	}
}

func TestAnOpenObjectKeepsWhatItDoesNotDeclareAndAClosedOneRefusesIt(t *testing.T) {
	var a *int64
	var extra map[string]json.RawMessage
	data := []byte(`{"a":1,"b":[1],"quote\"d":null}`)
	if err := DecodeObject(data, &extra, In("a", &a)); err != nil || *a != 1 || len(extra) != 2 {
		t.Fatalf("%v %v %v", a, extra, err)
	}
	again, err := EncodeObject(extra, Out("a", a, true))
	if err != nil || string(again) != `{"a":1,"b":[1],"quote\"d":null}` {
		t.Errorf("came back as %s (%v)", again, err)
	}
	if err := DecodeObject(data, nil, In("a", &a)); err == nil {
		t.Error("a closed object read members it does not declare")
	}
	if out, _ := EncodeObject(nil, Out("a", (*int64)(nil), true), Out("b", "", false)); string(out) != `{"b":""}` {
		t.Errorf("an absent optional member was written, or a present zero value was not: %s", out)
	}
}

func TestATupleIsAnArrayOfItsElementsThenTheRest(t *testing.T) {
	var first string
	var second *int64
	var rest []float64
	if err := DecodeTuple([]byte(`["a",2,3.5,4]`), 1, &rest, &first, &second); err != nil || first != "a" || *second != 2 || len(rest) != 2 {
		t.Fatalf("%v %v %v %v", first, second, rest, err)
	}
	if out, err := EncodeTuple(1, rest, first, second); err != nil || string(out) != `["a",2,3.5,4]` {
		t.Errorf("%s %v", out, err)
	}
	if out, _ := EncodeTuple(1, nil, "a", (*int64)(nil)); string(out) != `["a"]` {
		t.Errorf("an absent optional element was written: %s", out)
	}
	for _, text := range []string{`[]`, `["a",2,3]`} { // too few; more, with no rest
		if err := DecodeTuple([]byte(text), 1, nil, &first, &second); err == nil {
			t.Errorf("%s was read", text)
		}
	}
}

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

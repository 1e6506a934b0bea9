package repro

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	codeFence = regexp.MustCompile("(?s)```.*?```")
	codeSpan  = regexp.MustCompile("`[^`]*`")
	linkDest  = regexp.MustCompile(`\]\([^)]*\)`)
	// References to the paper and its parts, not measurements: "Figure 4",
	// "Figures 6 and 7", "Fig. 4(a)", "Table 1", "Section 3.2", "Equations
	// (2), (8) and (9)", "Algorithms 1-3", "issue 18", and the citation's
	// "(2013)", "vol. 2013, Article ID 516298, doi:10.1155/2013/516298".
	reference = regexp.MustCompile(`(?i)\b(figures?|fig\.|table|section|equations?|algorithms?|issue)\s+\(?\d+\)?(\([ab]\))?((\s*(,|and|to|-)\s*)\(?\d+\)?(\([ab]\))?)*|\bvol\. \d+|article id \d+|doi:\S+|\(2013\)`)
	number    = regexp.MustCompile(`\d[\d,]*(\.\d+)?(e[-+]?\d+)?`)
)

// numbers returns the numbers written in text, commas removed ("16,522,438"
// is 16522438), leaving out digits glued to a name ("ACBF_2", "m1", "4m",
// "10^7"'s exponent), with the text's own rounding.
func numbers(text string) []string {
	var out []string
	for _, loc := range number.FindAllStringIndex(text, -1) {
		a, b := loc[0], loc[1]
		if a > 0 {
			if c := text[a-1]; c == '_' || c == '^' || c == '.' || c == '-' && a > 1 && isLetter(text[a-2]) || isWord(c) {
				continue
			}
		}
		if b < len(text) && (isWord(text[b]) && text[b] != 'x' || text[b] == '^') {
			continue
		}
		out = append(out, strings.TrimRight(strings.ReplaceAll(text[a:b], ",", ""), "."))
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// TestReproductionNumbers checks that every number in docs/reproduction.md
// appears in a results file that a command of the repository writes
// (docs/results/ from `join repro`, bench/results/ from the bench scripts),
// so that no number in the doc is typed by hand. Code spans (commands), link
// targets and references to the paper's figures, tables, sections and
// equations are not numbers of a result.
func TestReproductionNumbers(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "reproduction.md"))
	if err != nil {
		t.Fatalf("docs/reproduction.md, part of the repository: %v", err)
	}
	// The numbers of the results as they are in the folder and as they
	// were committed: `join repro --out docs/results` rewrites the files
	// with this machine's timings, and the doc speaks of the committed run.
	have := map[string]bool{}
	add := func(b []byte) {
		for _, n := range number.FindAllString(string(b), -1) {
			have[strings.TrimRight(strings.ReplaceAll(n, ",", ""), ".")] = true
		}
	}
	for _, dir := range []string{filepath.Join("docs", "results"), filepath.Join("bench", "results")} {
		ents, err := os.ReadDir(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if ext := filepath.Ext(e.Name()); ext != ".md" && ext != ".csv" {
				continue
			}
			b, err := os.ReadFile(filepath.Join("..", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			add(b)
			add(committed(t, filepath.ToSlash(filepath.Join(dir, e.Name()))))
		}
	}
	text := codeFence.ReplaceAllString(string(doc), "")
	text = codeSpan.ReplaceAllString(text, "")
	text = linkDest.ReplaceAllString(text, "]")
	text = reference.ReplaceAllString(text, "")
	missing := map[string]bool{}
	for _, n := range numbers(text) {
		if !have[n] && !missing[n] {
			missing[n] = true
			t.Errorf("docs/reproduction.md: %s is in no file of docs/results or bench/results", n)
		}
	}
}

// committed returns the file at path (from the repository's root) as the
// last commit holds it, or nothing outside a git checkout or for a file
// not committed.
func committed(t *testing.T, path string) []byte {
	t.Helper()
	cmd := exec.Command("git", "show", "HEAD:"+path)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return out
}

// TestNumbers pins the tokenizer: names and references are not numbers.
func TestNumbers(t *testing.T) {
	got := strings.Join(numbers("ACBF_2 at m/n = 8: 1,314 ms, 2.1x, 4m bits, m1, 10^7, 7.66e-5, -72.3%, 13., 3.91-8.71 ms"), " ")
	if want := "8 1314 2.1 7.66e-5 72.3 13 3.91 8.71"; got != want {
		t.Errorf("numbers: %q, want %q", got, want)
	}
	if got := reference.ReplaceAllString("Figures 6 and 7, Fig. 4(a), Table 1, Equations (2), (8) and (9), Section 3.2; 97.6%", ""); strings.TrimSpace(strings.Trim(got, ", ;")) != "97.6%" && !strings.HasSuffix(got, "97.6%") {
		t.Errorf("reference left %q", got)
	}
}

package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAutoFlags: --filter auto with its flags and --hot-exclusions print
// their report lines and JSON; bad values and flags given without what they
// go with are refused in one line naming the flag.
func TestRunAutoFlags(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sj")
	if _, _, err := runCmd("gen", "--dataset", "semijoin", "--keys", "500", "--rows", "20000", "--selectivity", "0.05",
		"--distinct", "5000", "--zipf", "1.3", "--key-shape", "sparse", "--out", data); err != nil {
		t.Fatal(err)
	}
	keys, input := filepath.Join(data, "keys.csv"), filepath.Join(data, "input.csv")
	base := []string{"run", "--keys", keys, "--key-col", "K", "--input", input, "--join-col", "K", "--out", filepath.Join(dir, "o.csv")}
	jsonPath := filepath.Join(dir, "r.json")
	out, errOut, err := runCmd(append(base, "--filter", "auto", "--broadcast-budget", "64KiB", "--hot-exclusions", "50", "--report-json", jsonPath)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	text := out + errOut
	for _, want := range []string{"auto: ", "chose ", "predicted map phase", "hot exclusions: 50 asked", "row-weighted", ", auto ", ", exclusions "} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Auto *struct {
			Budget int64 `json:"broadcast_budget"`
			Chosen struct {
				BroadcastBytes int64 `json:"broadcast_bytes"`
			} `json:"chosen"`
		} `json:"auto"`
		Hot *struct {
			Asked, Found int
		} `json:"hot_exclusions"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Auto == nil || rep.Auto.Budget != 64<<10 || rep.Auto.Chosen.BroadcastBytes > 64<<10 || rep.Hot == nil || rep.Hot.Asked != 50 {
		t.Errorf("JSON report: auto %+v, hot exclusions %+v", rep.Auto, rep.Hot)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter", "auto", "--broadcast-budget", "0"}, "--broadcast-budget"},
		{[]string{"--filter", "auto", "--broadcast-budget", "lots"}, "--broadcast-budget"},
		{[]string{"--filter", "bloom", "--broadcast-budget", "1MiB"}, "--broadcast-budget"},
		{[]string{"--filter", "bloom", "--need-deletes"}, "--need-deletes"},
		{[]string{"--hot-exclusions", "-1"}, "--hot-exclusions"},
		{[]string{"--hot-exclusions", "65537"}, "--hot-exclusions"},
	} {
		_, _, err := runCmd(append(base, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(strings.TrimSpace(err.Error()), "\n") {
			t.Errorf("%q: %v, want a one-line error naming %s", tc.args, err, tc.want)
		}
	}
}

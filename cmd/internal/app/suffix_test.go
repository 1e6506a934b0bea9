package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/join"
)

// TestSameNamedColumns (issue 46): zip codes joined to airports on (city,
// state), both sides with latitude and longitude: the key side's are
// written latitude_keys and longitude_keys (or with --suffix), in CSV
// and in Parquet; --columns picks either side's; the output is an input
// again (its names are distinct); --on names the column of both sides.
// The header is written as a CSV line quoted only where it must be,
// whatever the inputs' quoting.
func TestSameNamedColumns(t *testing.T) {
	dir := t.TempDir()
	zips, air := filepath.Join(dir, "zip.csv"), filepath.Join(dir, "air.csv")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(zips, "\"city\",\"state\",latitude,longitude,zip\nAustin,TX,30.2,-97.7,78701\nPortland,OR,45.5,-122.6,97201\nPortland,ME,43.6,-70.2,04101\n")
	write(air, "city,state,latitude,longitude,code\nAustin,TX,30.19,-97.67,AUS\nPortland,OR,45.58,-122.59,PDX\n")
	rows := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		slices.Sort(lines[1:])
		return strings.Join(lines, "|")
	}
	out := filepath.Join(dir, "z.csv")
	if _, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--quiet", "--out", out); err != nil {
		t.Fatal(err, stderr)
	}
	want := "city,state,latitude,longitude,zip,latitude_keys,longitude_keys,code|Austin,TX,30.2,-97.7,78701,30.19,-97.67,AUS|Portland,OR,45.5,-122.6,97201,45.58,-122.59,PDX"
	if got := rows(out); got != want {
		t.Fatalf("--on city,state:\n%s\nwant\n%s", got, want)
	}
	// The same through --key-col and --join-col; Parquet, with a suffix of
	// one's own; then that output as an input: its names are distinct.
	pq := filepath.Join(dir, "z.parquet")
	if _, stderr, err := runCmd("run", "--keys", air, "--key-col", "city,state", "--input", zips, "--join-col", "city,state", "--suffix", "_air", "--quiet", "--out", pq); err != nil {
		t.Fatal(err, stderr)
	}
	again := filepath.Join(dir, "again.csv")
	if _, stderr, err := runCmd("run", "--keys", air, "--input", pq, "--on", "city,state", "--columns", "zip,latitude,latitude_air,latitude_keys", "--quiet", "--out", again); err != nil {
		t.Fatal(err, stderr)
	}
	if got, want := rows(again), "zip,latitude,latitude_air,latitude_keys|78701,30.2,30.19,30.19|97201,45.5,45.58,45.58"; got != want {
		t.Fatalf("the Parquet output as an input:\n%s\nwant\n%s", got, want)
	}
	// Qualified names and AS, in CSV and Parquet; the Parquet output read
	// back by its names.
	for _, o := range []string{again, pq} {
		if _, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "zip,keys.latitude AS airport_lat,input.latitude as zip_lat,code", "--quiet", "--out", o); err != nil {
			t.Fatal(err, stderr)
		}
	}
	if got, want := rows(again), "zip,airport_lat,zip_lat,code|78701,30.19,30.2,AUS|97201,45.58,45.5,PDX"; got != want {
		t.Fatalf("AS:\n%s\nwant\n%s", got, want)
	}
	back := filepath.Join(dir, "back.csv")
	if _, stderr, err := runCmd("run", "--keys", air, "--key-col", "code", "--input", pq, "--join-col", "code", "--columns", "zip_lat,airport_lat,city", "--quiet", "--out", back); err != nil {
		t.Fatal(err, stderr)
	}
	if got, want := rows(back), "zip_lat,airport_lat,city|30.2,30.19,Austin|45.5,45.58,Portland"; got != want {
		t.Fatalf("AS in Parquet, read back:\n%s\nwant\n%s", got, want)
	}
	// TSV by its extension (.tsv.gz too), read back as an input by its name.
	for _, name := range []string{"z.tsv", "z.tsv.gz"} {
		tsv := filepath.Join(dir, name)
		if _, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "zip,city,keys.latitude AS lat", "--quiet", "--out", tsv); err != nil {
			t.Fatal(err, stderr)
		}
		if _, stderr, err := runCmd("run", "--keys", air, "--input", tsv, "--on", "city", "--columns", "zip,lat,code", "--sort", "--quiet", "--out", back); err != nil {
			t.Fatal(err, stderr)
		}
		if got, want := rows(back), "zip,lat,code|78701,30.19,AUS|97201,45.58,PDX"; got != want {
			t.Fatalf("%s read back:\n%s\nwant\n%s", name, got, want)
		}
	}
	// JSON lines by the extension, and by --format on standard output.
	jl := filepath.Join(dir, "z.jsonl")
	if _, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "zip,city,keys.latitude AS lat", "--sort", "--quiet", "--out", jl); err != nil {
		t.Fatal(err, stderr)
	}
	if data, _ := os.ReadFile(jl); string(data) != "{\"zip\":78701,\"city\":\"Austin\",\"lat\":30.19}\n{\"zip\":97201,\"city\":\"Portland\",\"lat\":45.58}\n" {
		t.Errorf("--out z.jsonl: %q", data)
	}
	// Arrow IPC, file and stream, read back as an input.
	for _, name := range []string{"z.arrow", "z.arrows"} {
		ar := filepath.Join(dir, name)
		if _, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "zip,city,keys.latitude AS lat", "--quiet", "--out", ar); err != nil {
			t.Fatal(err, stderr)
		}
		if _, stderr, err := runCmd("run", "--keys", air, "--input", ar, "--on", "city", "--columns", "zip,lat,code", "--sort", "--quiet", "--out", back); err != nil {
			t.Fatal(err, stderr)
		}
		if got, want := rows(back), "zip,lat,code|78701,30.19,AUS|97201,45.58,PDX"; got != want {
			t.Fatalf("%s read back:\n%s\nwant\n%s", name, got, want)
		}
	}
	// A suffixed name the large side has too: suffixed again.
	if _, stderr, err := runCmd("run", "--keys", zips, "--input", out, "--on", "zip", "--columns", "latitude,latitude_keys,latitude_keys_keys", "--quiet", "--out", again); err != nil {
		t.Fatal(err, stderr)
	}
	if got, want := rows(again), "latitude,latitude_keys,latitude_keys_keys|30.2,30.19,30.2|45.5,45.58,45.5"; got != want {
		t.Fatalf("suffixed twice:\n%s\nwant\n%s", got, want)
	}
	// The stream writes the same names.
	if _, stderr, err := runCmd("stream", "--key-events", keyEvents(t, dir), "--probe", zips, "--on", "city", "--suffix", "_k", "--quiet", "--out", again); err != nil {
		t.Fatal(err, stderr)
	}
	if got, want := rows(again), "city,state,latitude,longitude,zip,state_k|Austin,TX,30.2,-97.7,78701,TX|Portland,ME,43.6,-70.2,04101,OR|Portland,OR,45.5,-122.6,97201,OR"; got != want {
		t.Fatalf("stream:\n%s\nwant\n%s", got, want)
	}
	// The stream's probe side takes --where (issue 46).
	if stdout, stderr, err := runCmd("stream", "--key-events", keyEvents(t, dir), "--probe", zips, "--on", "city", "--where", `state == "ME" or latitude < 40`, "--out", again); err != nil {
		t.Fatal(err, stderr)
	} else if !strings.Contains(stdout+stderr, "where: dropped 1 probe rows") {
		t.Errorf("stream --where report: %s %s", stdout, stderr)
	}
	if got, want := rows(again), "city,state,latitude,longitude,zip,state_keys|Austin,TX,30.2,-97.7,78701,TX|Portland,ME,43.6,-70.2,04101,OR"; got != want {
		t.Fatalf("stream --where:\n%s\nwant\n%s", got, want)
	}
	if _, _, err := runCmd("stream", "--key-events", keyEvents(t, dir), "--probe", zips, "--on", "city", "--where", `stat == "ME"`, "--out", again); err == nil || !strings.Contains(err.Error(), `--where "stat == \"ME\"": zip.csv has no column "stat"`) && !strings.Contains(err.Error(), `has no column "stat" (at character 1)`) {
		t.Errorf("stream --where with a bad column: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--keys", air, "--input", zips, "--on", "city", "--join-col", "city", "--out", again}, `run: --on "city" names the join column of both sides: give --on, or --key-col and --join-col, not both`},
		{[]string{"run", "--keys", air, "--input", zips, "--on", "city", "--suffix", "", "--out", again}, "--suffix is empty"},
		{[]string{"stream", "--key-events", air, "--probe", zips, "--on", "city", "--key-col", "city", "--out", again}, `stream: --on "city" names the join column of both sides`},
		{[]string{"version", "now"}, `version takes no arguments (got "now")`},
		{[]string{"run", "--keys", air, "--input", zips, "--on", "city,state", "--suffix", "\n", "--out", again}, `--suffix "\n": holds a control character`},
		{[]string{"run", "--keys", air, "--input", zips, "--on", "town", "--out", again}, `run: --on town: ` + air + ` has no column "town"`},
		{[]string{"run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "keys.city", "--out", again}, `--columns keys.city: the key side's key column "city" is not in the output`},
		{[]string{"run", "--keys", air, "--input", zips, "--on", "city,state", "--columns", "zip AS z,code AS z", "--out", again}, `two output columns would be named "z"`},
	} {
		_, _, err := runCmd(c.args...)
		var u usageError
		// The flags' own checks are usage errors; --columns is checked
		// against the sides' names, by the library.
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &u) && !errors.Is(err, join.ErrOptions) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	for _, arg := range []string{"--version", "version", "-version"} {
		if stdout, _, err := runCmd(arg); err != nil || !strings.HasPrefix(stdout, prog+" ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s: %v %q", arg, err, stdout)
		}
	}
}

// keyEvents writes key events inserting two rows keyed by city (city,
// state) into dir and returns its path.
func keyEvents(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(p, []byte("city,state\n+Austin,TX\n+Portland,OR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWhereFlags (issue 46): --where and --keys-where select the sides'
// rows in run and compare; a bad expression is one line naming the flag
// and the column or position.
func TestWhereFlags(t *testing.T) {
	dir := t.TempDir()
	zips, air := filepath.Join(dir, "zip.csv"), filepath.Join(dir, "air.csv")
	for p, s := range map[string]string{
		zips: "city,state,latitude,zip\nAustin,TX,30.2,78701\nPortland,OR,45.5,97201\nPortland,ME,43.6,04101\nSalem,OR,44.9,97301\n",
		air:  "city,state,latitude,code,hubs\nAustin,TX,30.19,AUS,1\nPortland,OR,45.58,PDX,3\nPortland,ME,43.65,PWM,\nSalem,OR,44.9,SLE,0\n",
	} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "o.csv")
	if stdout, stderr, err := runCmd("run", "--keys", air, "--input", zips, "--on", "city,state", "--keys-where", `state == "OR" and hubs > 0`, "--where", `zip startsWith "97"`, "--columns", "zip,code", "--out", out); err != nil {
		t.Fatal(err, stderr)
	} else if !strings.Contains(stdout, `keys where "state == \"OR\" and hubs > 0": dropped 3 of 4 key rows`) || !strings.Contains(stdout, `where "zip startsWith \"97\"": dropped 2 of 4 large rows`) {
		t.Errorf("the report: %s", stdout)
	}
	data, _ := os.ReadFile(out)
	if string(data) != "zip,code\n97201,PDX\n" {
		t.Errorf("--keys-where, --where: %q", data)
	}
	if stdout, stderr, err := runCmd("compare", "--keys", air, "--input", zips, "--on", "city,state", "--keys-where", `hubs == nil`, "--filters", "exact,acbf"); err != nil || !strings.Contains(stdout+stderr, "exact") {
		t.Errorf("compare: %v %s %s", err, stdout, stderr)
	}
	// No key columns given, on files that are not the NBER ones: what each
	// has, and the --on of the columns both have.
	_, _, err := runCmd("run", "--keys", air, "--input", zips, "--out", out)
	var dce *join.DefaultColumnsError
	if err == nil || !errors.As(err, &dce) || !errors.Is(err, join.ErrOptions) || !strings.Contains(err.Error(), `both have "city", "state", "latitude": give --on city (or --on city,state for a composite key), or --key-col and --join-col`) {
		t.Errorf("no key columns: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--where", `lattitude > 3`}, `run: --where "lattitude > 3": ` + zips + ` has no column "lattitude" (at character 1)`},
		{[]string{"--keys-where", `hubs >`}, `run: --keys-where "hubs >": unexpected token EOF (1:6)`},
		{[]string{"--where", ``}, `--where is empty`},
	} {
		_, _, err := runCmd(append([]string{"run", "--keys", air, "--input", zips, "--on", "city,state", "--out", out}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.args, err, c.want)
		}
	}
}

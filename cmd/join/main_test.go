package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestGenKeys(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCmd("gen", "--scale", "0.002", "--seed", "3", "--out", dir)
	if err != nil || !strings.Contains(out, "5848 patents") {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	keys := filepath.Join(dir, "keys.txt")
	out, _, err = runCmd("keys", "--patents", filepath.Join(dir, "apat63_99.txt"), "--sample", "50", "--where", "COUNTRY=US", "--out", keys)
	if err != nil || !strings.Contains(out, "50 of") {
		t.Fatalf("keys: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(keys)
	if n := strings.Count(string(data), "\n"); n != 51 {
		t.Fatalf("keys file has %d lines, want header + 50", n)
	}
}

func TestDemo(t *testing.T) {
	out, _, err := runCmd("demo", "--scale", "0.005")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"none", "exact", "bloom", "cbf", "acbf", "false positives"} {
		if !strings.Contains(out, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{nil, "no command", true},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, true},
		{[]string{"gen", "--scale", "x", "--out", dir}, "invalid value", true},
		{[]string{"gen", "--scale", "1"}, "--out is required", true},
		{[]string{"gen", "--scale", "-1", "--out", dir}, "scale -1", false},
		{[]string{"gen", "--out", dir, "extra"}, `unexpected argument "extra"`, true},
		{[]string{"keys", "--patents", filepath.Join(dir, "missing.txt"), "--out", filepath.Join(dir, "k")}, "missing.txt", false},
		{[]string{"keys", "--patents", "p", "--out", "k", "--where", "GYEAR"}, "want COLUMN=VALUE", true},
		{[]string{"keys", "--patents", "p", "--out", "k", "--sample", "0"}, "--sample 0", true},
		{[]string{"fetch", "--dir", dir, "--url", "http://127.0.0.1:1/"}, "join gen", false},
	} {
		_, _, err := runCmd(tc.args...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &u) != tc.usage {
			t.Errorf("join %q = %v, want an error with %q (usage %v)", tc.args, err, tc.want, tc.usage)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("join %q: error spans lines: %q", tc.args, err)
		}
	}
	// Nothing partial was written by the failed runs.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("failed runs left %d files in %s", len(ents), dir)
	}
}

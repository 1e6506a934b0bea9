// Polars (nodejs-polars 0.25.2, pinned in package.json) reads an output of
// `join run` back with its own reader for the file's extension (readCSV,
// readCSV with a tab for .tsv, scanJson (lines) for .jsonl, readParquet,
// readIPC for .arrow, readIPCStream for .arrows), sorts the rows by every
// column, and writes them as CSV to OUT, and "name:dtype" of each column to
// OUT.types: bench/outputs-duckdb.sh compares them across the formats.
//
//   node readback.js FILE OUT
const pl = require("nodejs-polars");
const fs = require("fs");

const [file, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node readback.js FILE OUT");
  process.exit(2);
}
const ext = file.slice(file.lastIndexOf(".") + 1);
const read = {
  csv: (p) => pl.readCSV(p, { inferSchemaLength: 100000 }),
  tsv: (p) => pl.readCSV(p, { sep: "\t", inferSchemaLength: 100000 }),
  jsonl: (p) => pl.scanJson(p, { inferSchemaLength: 100000 }).collectSync(),
  parquet: (p) => pl.readParquet(p),
  // readIPC takes a path only when it ends in .ipc (else it is the bytes):
  // the file's bytes, then.
  arrow: (p) => pl.readIPC(fs.readFileSync(p)),
  arrows: (p) => pl.readIPCStream(fs.readFileSync(p)),
}[ext];
if (!read) {
  console.error(`readback.js: no reader for .${ext}`);
  process.exit(2);
}
const df = read(file);
df.sort(df.columns).writeCSV(out);
fs.writeFileSync(out + ".types", df.columns.map((c) => `${c}:${df.getColumn(c).dtype}`).join("\n") + "\n");

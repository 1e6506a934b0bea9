// Polars (nodejs-polars 0.25.2, pinned in package.json) as a peer of the
// join benchmarks: a lazy scan of both sides (scanParquet or scanCSV by the
// file's extension), an inner join on the key columns, the result written
// as CSV. Prints the wall time in seconds.
//
//   node join.js KEYS INPUT KEYCOL JOINCOL OUT
const pl = require("nodejs-polars");

const [keys, input, keyCol, joinCol, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node join.js KEYS INPUT KEYCOL JOINCOL OUT");
  process.exit(2);
}
const scan = (p) => (p.endsWith(".parquet") ? pl.scanParquet(p) : pl.scanCSV(p));
const start = process.hrtime.bigint();
const df = scan(input)
  .join(scan(keys), { leftOn: joinCol, rightOn: keyCol, how: "inner" })
  .collectSync();
df.writeCSV(out);
console.log((Number(process.hrtime.bigint() - start) / 1e9).toFixed(3));

// Package nber reads, fetches and generates the NBER U.S. patent citation data
// (Hall, Jaffe and Trajtenberg, "The NBER Patent Citations Data File", NBER
// Working Paper 8498, 2001) that the ACBF paper's join runs on: cite75_99.txt
// (CITING, CITED; 16,522,438 rows) and apat63_99.txt (23 columns; 2,923,922
// rows). It knows nothing of filters or joins.
//
// # Reading
//
// The files are read with package csvscan (every CSV of the project is);
// this package adds their schemas (Cite, Pat) and ExpectHeader.
//
// # Generating
//
// Generate writes both files at any scale with the real names, headers and
// shapes. The model and the statistic each choice follows:
//
//   - Patent numbers: n = round(2,923,922 * scale) numbers spread evenly over
//     3,070,801..6,009,554 (the real first and last numbers), so at scale 1 the
//     count is exact and about 0.5% of numbers are gaps, as withdrawn numbers
//     are in the real file.
//   - GYEAR: from the USPTO issue-year boundaries (first patent number of each
//     year); GDATE: weekly Tuesday issues spread evenly over the year, in days
//     since 1960-01-01, as in the real file.
//   - Citations: exactly round(16,522,438 * scale) rows, made by patents granted
//     1975-1999, ascending by CITING. Citations made per patent grow 3.7% a year
//     with lognormal spread (the sample's CMADE means rise 2.5x over the period),
//     apportioned to hit the exact total.
//   - Cited patents: lag from the citing grant = lognormal body (median 6
//     years, mode ~3.4, as the sample's mode of 3-4) plus a 19% uniform 12-70
//     year "prior art" component, which puts ~16% of cited numbers before
//     3,070,801 (sample: 16.0%), absent from the patent file. Within a one-year
//     window around the target time the cited patent is drawn by a
//     Pareto(2.3) popularity weight (capped, and cut for 30% of patents): a
//     heavy-tailed in-degree with a most-cited patent near a thousand
//     citations and about 18% never cited (sample: max 716, 17%).
//   - CMADE, CRECEIVE, RATIOCIT, BCKGTLAG, FWDAPLAG are computed from the
//     generated citations, so they agree with the citation file exactly;
//     CMADE, CLAIMS and the backward measures are empty before 1975 as in the
//     real file.
//   - COUNTRY (US 80% in 1963 falling to 55%, JP rising to 23%), POSTATE
//     (US states by the sample's counts, empty abroad), ASSIGNEE/ASSCODE (about
//     a fifth unassigned), CLAIMS (median ~11), CAT/SUBCAT/NCLASS (the
//     sample's category shares), APPYEAR (the sample's grant lags),
//     GENERAL/ORIGINAL (simulated class concentration) and the self-citation
//     shares (only with an assignee) are plausible, not modelled in depth.
//
// Each patent's draws come from a generator seeded by (seed, patent), and work
// is cut in fixed chunks written in order, so the files are byte-identical for
// a seed and scale on any machine and any number of workers.
//
// # Keys and fetching
//
// ExtractKeys samples the join's small side from the patent file (65,771
// records by default, the paper's number). Fetcher downloads the real archives
// from the NBER page with resume and verification.
//
// # Concurrency
//
// Generate, ExtractKeys and Fetch are safe to call concurrently on different
// outputs.
package nber

// Package imdb generates an IMDb-shaped title.ratings.tsv, the input of the
// course project "Bloom Filter implementation in Hadoop and Spark" (Abaterusso,
// Arancio Febbo, Di Donato, Giorgi; University of Pisa; the seed project below), which builds
// one Bloom filter per rating class over the 1,256,196 titles of IMDb's
// ratings file. It knows nothing of filters.
//
// # Format
//
// A header line "tconst\taverageRating\tnumVotes", then one line per title,
// with LF line ends, like IMDb's file:
//
//   - tconst: "tt" and exactly seven digits, unique and increasing, with random
//     gaps, as the real file is sorted by tconst and sparse. The numbers are a
//     uniformly random set of Rows among 1..9,999,999 (selection sampling), so
//     Rows is at most 9,999,999.
//   - averageRating: one decimal, 1.0 to 10.0.
//   - numVotes: an integer, at least 5. This floor is an assumption taken from
//     IMDb's published rule that a title's rating is shown only once it has
//     five or more votes; it is not measured from a file.
//
// # Classes
//
// The seed project puts a title in class round(averageRating), rounded half-up (Java's
// Math.round in Hadoop, Python's Decimal ROUND_HALF_UP in Spark), one Bloom
// filter per class 1..10. ClassOf computes that class exactly on the decimal
// text; WriteRatings returns the histogram of the classes it wrote.
//
// # Model
//
// The shape is a parametric model chosen to match a description of IMDb's
// rating distribution, not a measurement: the real distribution is published
// by IMDb, but we had no network, and the seed project's own histogram (a figure in its
// introduction) was lost in our copy. The description it matches: unimodal with
// its mode at 7 (classes 6 and 7 the largest), mean around 6.9, left-skewed (a
// longer tail toward low ratings), every class 1..10 non-empty at 1,256,196
// titles.
//
//   - averageRating: a mixture. With probability 0.98, a skew-normal with
//     location 7.55, scale 1.2 and shape -1 (mean 6.87, standard deviation
//     1.0, skewness -0.14 before rounding), rounded to one decimal and
//     truncated to 1.0..10.0; with probability 0.02, one of the 91 values
//     1.0..10.0 uniformly, standing for the titles with few votes and extreme
//     ratings, which make the tails (classes 1-3 and 10) non-empty.
//     Overall, at SeedRows: mean about 6.84, standard deviation about 1.07,
//     skewness about -0.56; classes 7, 6, 8 hold about 38%, 25% and 23%,
//     class 1 about 0.1%.
//   - numVotes: floor of a Pareto with minimum 5 and shape 0.65, truncated at
//     3,000,000 (the order of the most-voted title's votes): median about 14,
//     about one title in 30 above 1,000 votes and a couple of hundred above
//     1,000,000 at SeedRows. Heavy-tailed as the real counts are; the
//     parameters are plausible, not fitted.
//   - averageRating and numVotes are independent of each other and of
//     tconst (in the real file, titles with few votes have more extreme
//     ratings).
//
// # Determinism and cost
//
// The draws come from two math/rand/v2 PCG generators seeded from Seed: the
// same Rows and Seed give byte-identical output. The tconst and averageRating
// draws are integer comparisons on the generators' output (the rating's 91
// thresholds are computed once in floating point); numVotes uses math.Exp and
// math.Log1p per row. Go's math functions may differ in the last bit between
// CPU architectures, which could in principle move a threshold or a vote count
// by one: the chance that this changes a byte of a file is about 1e-7. WriteRatings writes 1,256,196 rows
// (21 MB) in about 0.2 s on one core; its cost is O(Rows + 9,999,999), the
// tconst draw visiting the candidate numbers in order.
//
// # Concurrency
//
// WriteRatings, GenerateRatings and ClassOf are safe to call concurrently
// (GenerateRatings on different folders).
package imdb

// Package bank is a filter bank: one filter per class of a column of a key
// file, built in one pass, validated against the formula, updated by moving
// keys between classes, and used by a join that wants the rows of some
// classes only.
//
// It is the system of seed 000 (one Bloom filter per IMDb rating class on
// Hadoop and Spark), done the way a join tool needs it: any filter kind of
// the registry (filters), each class's filter sized for its own distinct
// keys (with Sizing.FPP = p, the Bloom kind gets the seed's m_i = -n_i ln p
// / ln^2 2 and k = round((m_i/n_i) ln 2), where the seed's Java truncated k
// to 6), a validation that compares each class's measured false positive
// rate with the formula of the filter actually built (Validate), moves of
// keys between classes without a rebuild for the kinds that delete (Apply),
// and the union of any subset of classes as one filter for a join (Union).
//
// A Bank is not safe for concurrent modification (Apply); its filters are
// safe for concurrent readers. Reading a bank file (Read) validates it
// before it allocates more than its bytes.
package bank

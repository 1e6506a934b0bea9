module github.com/acbfjoin/acbfjoin

go 1.26

require (
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/spaolacci/murmur3 v1.1.0
)

require github.com/bits-and-blooms/bitset v1.24.2 // indirect

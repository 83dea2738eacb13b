// FNV-1a, 64-bit: the state hash (sn_world_state_hash) and the snapshot payload check. Hashes bit
// patterns, so equal hashes mean equal bits.
#ifndef SINEW_HASH_H
#define SINEW_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_SEED 14695981039346656037ull

static inline uint64_t hash_bytes(uint64_t h, const void* data, size_t size)
{
	const unsigned char* p = data;
	for (size_t i = 0; i < size; ++i)
	{
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static inline uint64_t hash_doubles(uint64_t h, const double* x, size_t count)
{
	return hash_bytes(h, x, count * sizeof(double));
}

#endif

// The step's scratch: memory a step fills and leaves behind (sinew/world.h, sn_step_scratch). A world has
// its own; a thread that steps many worlds in turn may lend them one, so that those temporaries stay in its
// core's cache instead of one set per world being pulled through it every round.
#ifndef SINEW_SCRATCH_H
#define SINEW_SCRATCH_H

#include "alloc.h"

#include <stdbool.h>
#include <stddef.h>

enum
{
	SCRATCH_ALIGN = 64 // bytes: each part starts a cache line
};

// One block, its start aligned to SCRATCH_ALIGN. Regrown (the contents are not kept) when a step needs more.
typedef struct scratch_block
{
	void* raw; // as allocated
	size_t raw_size;
	unsigned char* base; // raw, aligned
	size_t capacity;     // bytes from base
} scratch_block;

// Make the block hold at least `needed` bytes; false (the block unchanged) if that memory is not there.
bool scratch_block_reserve(sn_memory* memory, scratch_block* block, size_t needed);
void scratch_block_release(sn_memory* memory, scratch_block* block);

// A size rounded up to whole SCRATCH_ALIGN units (a part's footprint in the block).
static inline size_t scratch_round(size_t bytes)
{
	return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

struct sn_step_scratch
{
	sn_memory memory; // its allocator
	scratch_block block;
};

#endif

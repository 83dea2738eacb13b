#include "scratch.h"

#include "sinew/world.h"

#include <stdint.h>

bool scratch_block_reserve(sn_memory* memory, scratch_block* block, size_t needed)
{
	if (needed <= block->capacity)
	{
		return true;
	}
	// What is needed (a world's need grows only when the world does; a lent scratch's, up to the largest
	// world it serves), and SCRATCH_ALIGN more to align the start.
	if (needed > SIZE_MAX / 2)
	{
		return false;
	}
	size_t capacity = scratch_round(needed);
	size_t raw_size = capacity + SCRATCH_ALIGN;
	void* raw = memory_alloc(memory, raw_size);
	if (raw == NULL)
	{
		return false;
	}
	scratch_block_release(memory, block);
	uintptr_t start = ((uintptr_t)raw + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
	block->raw = raw;
	block->raw_size = raw_size;
	block->base = (unsigned char*)start;
	block->capacity = capacity;
	return true;
}

void scratch_block_release(sn_memory* memory, scratch_block* block)
{
	memory_free(memory, block->raw, block->raw_size);
	*block = (scratch_block){ NULL, 0, NULL, 0 };
}

sn_error sn_step_scratch_create(const sn_allocator* allocator, sn_step_scratch** out)
{
	if (out == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_memory memory;
	memory_init(&memory, allocator != NULL ? *allocator : (sn_allocator){ NULL, NULL, NULL });
	sn_step_scratch* s = memory_alloc(&memory, sizeof(*s));
	if (s == NULL)
	{
		return SN_ERR_NO_MEMORY;
	}
	s->memory = memory;
	s->block = (scratch_block){ NULL, 0, NULL, 0 };
	*out = s;
	return SN_ERR_OK;
}

void sn_step_scratch_destroy(sn_step_scratch* scratch)
{
	if (scratch == NULL)
	{
		return;
	}
	scratch_block_release(&scratch->memory, &scratch->block);
	sn_memory last = scratch->memory;
	memory_free(&last, scratch, sizeof(*scratch));
}

size_t sn_step_scratch_get_capacity(const sn_step_scratch* scratch)
{
	return scratch != NULL ? scratch->block.capacity : 0;
}

// Allocation through a world's allocator hook, with byte and call counters (sn_memory_stats).
#ifndef SINEW_ALLOC_H
#define SINEW_ALLOC_H

#include "sinew/base.h"
#include "sinew/types.h"

typedef struct sn_memory
{
	sn_allocator hook;
	sn_memory_stats stats;
} sn_memory;

void memory_init(sn_memory* memory, sn_allocator hook);
// NULL on failure (or for size 0). Memory is zeroed.
void* memory_alloc(sn_memory* memory, size_t size);
void memory_free(sn_memory* memory, void* pointer, size_t size);

// Grow *array (elements of element_size, capacity *capacity) to hold at least needed elements, keeping
// the contents. Grows geometrically. Returns false (and changes nothing) if allocation fails.
bool memory_reserve(sn_memory* memory, void** array, int* capacity, int needed, size_t element_size);

#endif

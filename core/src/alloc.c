#include "alloc.h"

#include <stdlib.h>
#include <string.h>

static void* default_alloc(void* context, size_t size)
{
	(void)context;
	return malloc(size);
}

static void default_free(void* context, void* pointer, size_t size)
{
	(void)context;
	(void)size;
	free(pointer);
}

void memory_init(sn_memory* memory, sn_allocator hook)
{
	memset(memory, 0, sizeof(*memory));
	if (hook.alloc == NULL || hook.free == NULL)
	{
		hook.alloc = default_alloc;
		hook.free = default_free;
		hook.context = NULL;
	}
	memory->hook = hook;
}

void* memory_alloc(sn_memory* memory, size_t size)
{
	if (size == 0)
	{
		return NULL;
	}
	void* p = memory->hook.alloc(memory->hook.context, size);
	if (p == NULL)
	{
		return NULL;
	}
	memset(p, 0, size);
	memory->stats.allocations += 1;
	memory->stats.bytes_in_use += size;
	return p;
}

void memory_free(sn_memory* memory, void* pointer, size_t size)
{
	if (pointer == NULL)
	{
		return;
	}
	memory->hook.free(memory->hook.context, pointer, size);
	memory->stats.frees += 1;
	memory->stats.bytes_in_use -= size;
}

bool memory_reserve(sn_memory* memory, void** array, int* capacity, int needed, size_t element_size)
{
	if (needed <= *capacity)
	{
		return true;
	}
	int new_capacity = *capacity < 8 ? 8 : *capacity;
	while (new_capacity < needed)
	{
		if (new_capacity > (1 << 29))
		{
			new_capacity = needed;
			break;
		}
		new_capacity *= 2;
	}
	void* grown = memory_alloc(memory, (size_t)new_capacity * element_size);
	if (grown == NULL)
	{
		return false;
	}
	if (*array != NULL)
	{
		memcpy(grown, *array, (size_t)(*capacity) * element_size);
		memory_free(memory, *array, (size_t)(*capacity) * element_size);
	}
	*array = grown;
	*capacity = new_capacity;
	return true;
}

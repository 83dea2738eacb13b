// Slot table with generations and a free list.
#include "idpool.h"

#include <stdlib.h>
#include <string.h>

void idpool_init(idpool* pool)
{
	memset(pool, 0, sizeof(*pool));
	pool->free_head = -1;
}

void idpool_free(idpool* pool)
{
	free(pool->items);
	free(pool->generations);
	free(pool->next_free);
	idpool_init(pool);
}

static bool grow(idpool* pool)
{
	int capacity = pool->capacity > 0 ? 2 * pool->capacity : 16;
	void** items = realloc(pool->items, (size_t)capacity * sizeof(void*));
	if (items == NULL)
	{
		return false;
	}
	pool->items = items;
	uint32_t* generations = realloc(pool->generations, (size_t)capacity * sizeof(uint32_t));
	if (generations == NULL)
	{
		return false;
	}
	pool->generations = generations;
	int32_t* next_free = realloc(pool->next_free, (size_t)capacity * sizeof(int32_t));
	if (next_free == NULL)
	{
		return false;
	}
	pool->next_free = next_free;
	pool->capacity = capacity;
	return true;
}

uint64_t idpool_id_at(const idpool* pool, int index)
{
	return ((uint64_t)(uint32_t)(index + 1) << 32) | pool->generations[index];
}

uint64_t idpool_add(idpool* pool, void* item)
{
	int index;
	if (pool->free_head >= 0)
	{
		index = pool->free_head;
		pool->free_head = pool->next_free[index];
	}
	else
	{
		if (pool->high == pool->capacity && !grow(pool))
		{
			return 0;
		}
		index = pool->high++;
		pool->generations[index] = 0;
	}
	// Generations start at 1 and skip 0 when they wrap.
	pool->generations[index] += 1;
	if (pool->generations[index] == 0)
	{
		pool->generations[index] = 1;
	}
	pool->items[index] = item;
	pool->next_free[index] = -1;
	pool->count += 1;
	return idpool_id_at(pool, index);
}

uint64_t idpool_add_at(idpool* pool, uint64_t id, void* item, int max_index)
{
	uint32_t index1 = (uint32_t)(id >> 32);
	uint32_t generation = (uint32_t)id;
	if (index1 == 0 || generation == 0 || index1 > (uint32_t)max_index)
	{
		return 0;
	}
	int index = (int)(index1 - 1);
	while (pool->high <= index)
	{
		// The slots up to it exist from now on, free.
		if (pool->high == pool->capacity && !grow(pool))
		{
			return 0;
		}
		int fresh = pool->high++;
		pool->items[fresh] = NULL;
		pool->generations[fresh] = 0;
		pool->next_free[fresh] = pool->free_head;
		pool->free_head = fresh;
	}
	if (pool->items[index] != NULL)
	{
		return 0;
	}
	// Unlink the slot from the free list.
	for (int32_t* link = &pool->free_head; *link >= 0; link = &pool->next_free[*link])
	{
		if (*link == index)
		{
			*link = pool->next_free[index];
			break;
		}
	}
	pool->generations[index] = generation;
	pool->items[index] = item;
	pool->next_free[index] = -1;
	pool->count += 1;
	return id;
}

static int slot_of(const idpool* pool, uint64_t id)
{
	uint32_t index1 = (uint32_t)(id >> 32);
	uint32_t generation = (uint32_t)id;
	if (index1 == 0 || index1 > (uint32_t)pool->high)
	{
		return -1;
	}
	int index = (int)(index1 - 1);
	if (pool->items[index] == NULL || pool->generations[index] != generation)
	{
		return -1;
	}
	return index;
}

void* idpool_get(const idpool* pool, uint64_t id)
{
	int index = slot_of(pool, id);
	return index >= 0 ? pool->items[index] : NULL;
}

void* idpool_remove(idpool* pool, uint64_t id)
{
	int index = slot_of(pool, id);
	if (index < 0)
	{
		return NULL;
	}
	void* item = pool->items[index];
	pool->items[index] = NULL;
	pool->next_free[index] = pool->free_head;
	pool->free_head = index;
	pool->count -= 1;
	return item;
}

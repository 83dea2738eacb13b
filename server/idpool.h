// Value ids for the server's own objects (sessions, worlds, subscriptions), like the core's: a slot
// index and a generation packed into a uint64 (high 32 bits index + 1, low 32 bits generation), so a
// stale id from a client never names a recycled slot. Zero is never an id.
#ifndef SINEW_SERVER_IDPOOL_H
#define SINEW_SERVER_IDPOOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct idpool
{
	void** items; // NULL where the slot is free
	uint32_t* generations;
	int32_t* next_free;
	int capacity;
	int high;          // slots used so far
	int count;         // live items
	int32_t free_head; // -1 if none
} idpool;

void idpool_init(idpool* pool);
void idpool_free(idpool* pool);
// Store item (not NULL); returns its id, or 0 if memory ran out.
uint64_t idpool_add(idpool* pool, void* item);
// Store item under a given id (a world restored with the id it had): its slot must be free and its index
// below max_index. Returns the id, or 0 if not (or if memory ran out).
uint64_t idpool_add_at(idpool* pool, uint64_t id, void* item, int max_index);
// The item of a live id, or NULL.
void* idpool_get(const idpool* pool, uint64_t id);
// Remove and return the item of a live id (NULL if stale).
void* idpool_remove(idpool* pool, uint64_t id);
// The id of the item in slot `index` (which must be live).
uint64_t idpool_id_at(const idpool* pool, int index);

#endif

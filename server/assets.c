// The asset store (see assets.h): an open-addressing table keyed by (kind, hash), with a use clock for
// least-recently-used eviction. Eviction scans the table for the oldest blobs not in use: the table holds
// at most ASSET_STORE_MAX_ENTRIES, and it runs only when a put needs room, then makes room for the next
// puts too (make_room).
#include "assets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

asset_blob* asset_blob_new(asset_kind kind, size_t size)
{
	if (size > SIZE_MAX - sizeof(asset_blob) - 1)
	{
		return NULL;
	}
	asset_blob* blob = malloc(sizeof(asset_blob) + (size > 0 ? size : 1));
	if (blob == NULL)
	{
		return NULL;
	}
	blob->refs = 1;
	blob->kind = kind;
	blob->hashed = false;
	memset(blob->hash, 0, sizeof(blob->hash));
	blob->size = size;
	return blob;
}

void asset_blob_ref(asset_blob* blob)
{
	if (blob != NULL)
	{
		blob->refs += 1;
	}
}

void asset_blob_unref(asset_blob* blob)
{
	if (blob != NULL && --blob->refs == 0)
	{
		free(blob);
	}
}

bool asset_blob_hash(asset_blob* blob)
{
	blob->hashed = wire_sha256(blob->data, blob->size, blob->hash);
	return blob->hashed;
}

// ---- the table ----------------------------------------------------------------------------------------

static uint64_t key_of(asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE])
{
	// The hash is uniform: its first bytes are a good table index; the kind is mixed in.
	uint64_t k;
	memcpy(&k, hash, sizeof(k));
	return k ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull);
}

static bool same(const asset_blob* b, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE])
{
	return b->kind == kind && memcmp(b->hash, hash, WIRE_HASH_SIZE) == 0;
}

static int find_slot(const asset_store* s, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE])
{
	int mask = s->capacity - 1;
	for (int i = (int)(key_of(kind, hash) & (uint64_t)mask), n = 0; n < s->capacity; i = (i + 1) & mask, ++n)
	{
		if (s->slots[i].blob == NULL)
		{
			return -1;
		}
		if (same(s->slots[i].blob, kind, hash))
		{
			return i;
		}
	}
	return -1;
}

// Remove slot i, shifting later entries of its probe run back (no tombstones).
static void remove_slot(asset_store* s, int i)
{
	int mask = s->capacity - 1;
	s->bytes -= s->slots[i].blob->size;
	s->count -= 1;
	asset_blob_unref(s->slots[i].blob);
	s->slots[i].blob = NULL;
	int hole = i;
	for (int j = (i + 1) & mask; s->slots[j].blob != NULL; j = (j + 1) & mask)
	{
		int home = (int)(key_of(s->slots[j].blob->kind, s->slots[j].blob->hash) & (uint64_t)mask);
		// Move j into the hole unless its home lies cyclically in (hole, j].
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays)
		{
			s->slots[hole] = s->slots[j];
			s->slots[j].blob = NULL;
			hole = j;
		}
	}
}

// Slots the table starts with; it doubles while more than half full, up to twice ASSET_STORE_MAX_ENTRIES
// (a power of two: probe runs stay short).
#define ASSET_STORE_FIRST_CAPACITY 64

bool asset_store_init(asset_store* s, size_t budget)
{
	memset(s, 0, sizeof(*s));
	s->capacity = ASSET_STORE_FIRST_CAPACITY;
	s->slots = calloc((size_t)s->capacity, sizeof(asset_slot));
	s->budget = budget;
	return s->slots != NULL;
}

// Room for one more entry at most half full. False if memory ran out (the table stays as it was).
static bool reserve(asset_store* s)
{
	if (2 * (s->count + 1) <= s->capacity || s->capacity >= 2 * ASSET_STORE_MAX_ENTRIES)
	{
		return true;
	}
	int capacity = 2 * s->capacity;
	asset_slot* slots = calloc((size_t)capacity, sizeof(asset_slot));
	if (slots == NULL)
	{
		return false;
	}
	asset_slot* old = s->slots;
	int old_capacity = s->capacity;
	s->slots = slots;
	s->capacity = capacity;
	for (int i = 0; i < old_capacity; ++i)
	{
		if (old[i].blob != NULL)
		{
			int mask = capacity - 1;
			int k = (int)(key_of(old[i].blob->kind, old[i].blob->hash) & (uint64_t)mask);
			while (slots[k].blob != NULL)
			{
				k = (k + 1) & mask;
			}
			slots[k] = old[i];
		}
	}
	free(old);
	return true;
}

void asset_store_free(asset_store* s)
{
	for (int i = 0; s->slots != NULL && i < s->capacity; ++i)
	{
		asset_blob_unref(s->slots[i].blob);
	}
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

asset_blob* asset_store_find(asset_store* s, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE])
{
	int i = s->slots != NULL ? find_slot(s, kind, hash) : -1;
	if (i < 0)
	{
		s->misses += 1;
		return NULL;
	}
	s->hits += 1;
	s->slots[i].used = ++s->clock;
	return s->slots[i].blob;
}

bool asset_store_has(const asset_store* s, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE])
{
	return s->slots != NULL && find_slot(s, kind, hash) >= 0;
}

typedef struct candidate
{
	asset_blob* blob;
	uint64_t used;
} candidate;

static int by_use(const void* a, const void* b)
{
	uint64_t x = ((const candidate*)a)->used, y = ((const candidate*)b)->used;
	return x < y ? -1 : x > y ? 1 : 0;
}

// Drop least recently used blobs that nobody else holds until `size` more bytes and one more entry fit.
// False (nothing dropped) if they cannot: the blobs in use leave too little room.
//
// Finding the least recently used takes a pass over the table and a sort of what is not in use. So that a
// full store does not pay that at every put (65,536 blobs: milliseconds each, on the loop thread), a pass
// drops down to EVICT_TO of both bounds where the blobs not in use allow, never fewer than the put needs:
// the next passes come only after another eighth of the store was put.
#define EVICT_TO(bound) ((bound) / 8 * 7)

static bool make_room(asset_store* s, size_t size)
{
	if (s->bytes + size <= s->budget && s->count < ASSET_STORE_MAX_ENTRIES)
	{
		return true;
	}
	candidate* list = malloc((size_t)(s->count > 0 ? s->count : 1) * sizeof(candidate));
	if (list == NULL)
	{
		return false;
	}
	s->eviction_passes += 1;
	int n = 0;
	size_t free_bytes = 0;
	for (int i = 0; i < s->capacity; ++i)
	{
		if (s->slots[i].blob != NULL && s->slots[i].blob->refs == 1)
		{
			list[n++] = (candidate){ s->slots[i].blob, s->slots[i].used };
			free_bytes += s->slots[i].blob->size;
		}
	}
	bool fits = s->bytes - free_bytes + size <= s->budget && s->count - n < ASSET_STORE_MAX_ENTRIES;
	if (fits)
	{
		qsort(list, (size_t)n, sizeof(candidate), by_use);
		// The slack a pass makes is at most an eighth of each bound: when blobs in use hold most of the
		// store, a pass trims what is not in use rather than emptying it.
		size_t byte_goal = EVICT_TO(s->budget);
		int count_goal = EVICT_TO(ASSET_STORE_MAX_ENTRIES);
		size_t dropped_bytes = 0;
		int dropped = 0;
		for (int k = 0; k < n; ++k)
		{
			bool needed = s->bytes + size > s->budget || s->count >= ASSET_STORE_MAX_ENTRIES;
			bool slack = (s->bytes + size > byte_goal && dropped_bytes < s->budget - byte_goal) ||
				(s->count + 1 > count_goal && dropped < ASSET_STORE_MAX_ENTRIES - count_goal);
			if (!needed && !slack)
			{
				break;
			}
			dropped_bytes += list[k].blob->size;
			dropped += 1;
			remove_slot(s, find_slot(s, list[k].blob->kind, list[k].blob->hash));
			s->evictions += 1;
		}
	}
	free(list);
	return fits;
}

asset_blob* asset_store_put(asset_store* s, asset_blob* blob, char* why, size_t cap)
{
	if (s->slots == NULL || blob == NULL || !blob->hashed)
	{
		snprintf(why, cap, "the asset store is not available");
		return NULL;
	}
	int existing = find_slot(s, blob->kind, blob->hash);
	if (existing >= 0)
	{
		s->slots[existing].used = ++s->clock;
		return s->slots[existing].blob;
	}
	if (blob->size > s->budget)
	{
		s->refusals += 1;
		snprintf(why, cap, "%zu bytes, more than the whole asset store (max_asset_store_bytes %zu)", blob->size,
				 s->budget);
		return NULL;
	}
	if (!make_room(s, blob->size))
	{
		s->refusals += 1;
		snprintf(why, cap,
				 "the asset store cannot make room: max_asset_store_bytes (%zu) holds %zu bytes in %d blobs, and "
				 "worlds and loads use too many of them",
				 s->budget, s->bytes, s->count);
		return NULL;
	}
	if (!reserve(s))
	{
		snprintf(why, cap, "out of memory");
		return NULL;
	}
	int mask = s->capacity - 1;
	int i = (int)(key_of(blob->kind, blob->hash) & (uint64_t)mask);
	while (s->slots[i].blob != NULL)
	{
		i = (i + 1) & mask;
	}
	asset_blob_ref(blob);
	s->slots[i].blob = blob;
	s->slots[i].used = ++s->clock;
	s->count += 1;
	s->bytes += blob->size;
	return blob;
}

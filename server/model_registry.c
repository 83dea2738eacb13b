// A world's kept models (see model_registry.h).
#include "model_registry.h"

#include "sinew/articulation.h"

#include <stdlib.h>
#include <string.h>

static uint32_t slot_of(model_kind kind, uint64_t object, int capacity)
{
	uint64_t h = (object ^ ((uint64_t)kind << 56)) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32) & (uint32_t)(capacity - 1);
}

static void index_insert(model_registry* r, int position)
{
	const model_entry* e = r->entries + position;
	uint32_t mask = (uint32_t)r->slot_capacity - 1;
	uint32_t i = slot_of(e->kind, e->object, r->slot_capacity);
	while (r->slots[i] != 0)
	{
		i = (i + 1) & mask;
	}
	r->slots[i] = position + 1;
}

// Index every entry again (the positions moved, or the entries' capacity grew). Without memory the index
// goes, and finds scan.
static void index_rebuild(model_registry* r)
{
	if (r->capacity == 0)
	{
		return;
	}
	int want = 16;
	while (want < 2 * r->capacity)
	{
		want *= 2;
	}
	if (r->slot_capacity != want)
	{
		free(r->slots);
		r->slots = malloc((size_t)want * sizeof(int32_t));
		r->slot_capacity = r->slots != NULL ? want : 0;
	}
	if (r->slots == NULL)
	{
		return;
	}
	memset(r->slots, 0, (size_t)r->slot_capacity * sizeof(int32_t));
	for (int i = 0; i < r->count; ++i)
	{
		index_insert(r, i);
	}
}

static model_entry* find(const model_registry* r, model_kind kind, uint64_t object)
{
	if (r->slots == NULL)
	{
		for (int i = 0; i < r->count; ++i)
		{
			if (r->entries[i].kind == kind && r->entries[i].object == object)
			{
				return r->entries + i;
			}
		}
		return NULL;
	}
	uint32_t mask = (uint32_t)r->slot_capacity - 1;
	for (uint32_t i = slot_of(kind, object, r->slot_capacity); r->slots[i] != 0; i = (i + 1) & mask)
	{
		model_entry* e = r->entries + (r->slots[i] - 1);
		if (e->kind == kind && e->object == object)
		{
			return e;
		}
	}
	return NULL;
}

// Is the object an entry describes still in the world?
static bool entry_alive(const model_entry* e, const sn_world* world)
{
	if (world == NULL)
	{
		return false;
	}
	switch (e->kind)
	{
		case MODEL_URDF:
			return sn_articulation_is_valid(world, sn_articulation_id_load(e->object));
		case MODEL_SHAPE_MESH:
			return sn_shape_is_valid(world, sn_shape_id_load(e->object));
	}
	return false;
}

static void release(model_entry* e)
{
	free(e->bytes);
	for (int k = 0; k < e->blob_count; ++k)
	{
		asset_blob_unref(e->blobs[k]);
	}
	free(e->blobs);
	e->bytes = NULL;
	e->blobs = NULL;
	e->blob_count = 0;
}

// Keep the entries `keep` says yes to, in order; free the others.
static void filter(model_registry* r, bool (*keep)(const model_entry* e, const void* arg), const void* arg)
{
	int kept = 0;
	for (int i = 0; i < r->count; ++i)
	{
		if (keep(r->entries + i, arg))
		{
			r->entries[kept++] = r->entries[i];
		}
		else
		{
			release(r->entries + i);
		}
	}
	if (kept != r->count)
	{
		r->count = kept;
		index_rebuild(r);
	}
}

bool model_registry_keep(model_registry* r, model_kind kind, uint64_t object, uint8_t* bytes, size_t size,
						 asset_blob* const* blobs, int blob_count)
{
	asset_blob** held = NULL;
	if (blob_count > 0)
	{
		held = malloc((size_t)blob_count * sizeof(asset_blob*));
		if (held == NULL)
		{
			return false;
		}
	}
	model_entry* e = find(r, kind, object);
	if (e == NULL && r->count == r->capacity)
	{
		int capacity = r->capacity > 0 ? 2 * r->capacity : 4;
		model_entry* grown = realloc(r->entries, (size_t)capacity * sizeof(model_entry));
		if (grown == NULL)
		{
			free(held);
			return false;
		}
		r->entries = grown;
		r->capacity = capacity;
		index_rebuild(r);
	}
	for (int k = 0; k < blob_count; ++k)
	{
		held[k] = blobs[k];
		asset_blob_ref(held[k]);
	}
	if (e != NULL)
	{
		release(e);
	}
	else
	{
		e = r->entries + r->count++;
		*e = (model_entry){ kind, object, bytes, size, held, blob_count };
		if (r->slots != NULL)
		{
			index_insert(r, r->count - 1);
		}
		return true;
	}
	*e = (model_entry){ kind, object, bytes, size, held, blob_count };
	return true;
}

const model_entry* model_registry_find(const model_registry* r, model_kind kind, uint64_t object)
{
	return find(r, kind, object);
}

typedef struct entry_key
{
	model_kind kind;
	uint64_t object;
} entry_key;

static bool other_than(const model_entry* e, const void* arg)
{
	const entry_key* key = arg;
	return e->kind != key->kind || e->object != key->object;
}

void model_registry_forget(model_registry* r, model_kind kind, uint64_t object)
{
	entry_key key = { kind, object };
	filter(r, other_than, &key);
}

static bool none(const model_entry* e, const void* arg)
{
	(void)e;
	(void)arg;
	return false;
}

void model_registry_clear(model_registry* r)
{
	filter(r, none, NULL);
}

static bool alive_in(const model_entry* e, const void* world)
{
	return entry_alive(e, world);
}

void model_registry_prune(model_registry* r, const sn_world* world)
{
	filter(r, alive_in, world);
}

bool model_registry_copy(model_registry* to, const model_registry* from)
{
	for (int i = 0; i < from->count; ++i)
	{
		const model_entry* e = from->entries + i;
		uint8_t* copy = malloc(e->size > 0 ? e->size : 1);
		if (copy == NULL)
		{
			return false;
		}
		memcpy(copy, e->bytes, e->size);
		if (!model_registry_keep(to, e->kind, e->object, copy, e->size, e->blobs, e->blob_count))
		{
			free(copy);
			return false;
		}
	}
	return true;
}

void model_registry_free(model_registry* r)
{
	model_registry_clear(r);
	free(r->entries);
	free(r->slots);
	r->entries = NULL;
	r->slots = NULL;
	r->slot_capacity = 0;
	r->capacity = 0;
}

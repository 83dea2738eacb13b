// What a world keeps about where its objects came from, for clients that ask later: encoded messages
// keyed by kind and by the object they describe. Two kinds: an articulation's UrdfModel as LoadUrdf
// answered it (model_info.c), which DescribeWorld sends again to a client that joins later, and the mesh a
// triangle-mesh shape is drawn with (shapes.c). An entry also holds references to the asset store's blobs
// it names (the meshes of a robot's visuals, of a shape), so that they stay while the world uses them.
//
// An entry lives as long as its object: forgotten when the object is destroyed, pruned when the world is
// replaced by a state without it (reset, restore), copied with a clone. A new kind is a new model_kind and
// one case in model_registry.c's entry_alive, which says when its object is gone.
#ifndef SINEW_SERVER_MODEL_REGISTRY_H
#define SINEW_SERVER_MODEL_REGISTRY_H

#include "assets.h"

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum model_kind
{
	MODEL_URDF = 1,       // an articulation's encoded UrdfModel; object: the articulation's id (wire form)
	MODEL_SHAPE_MESH = 2, // a triangle-mesh shape's mesh: bytes its 32-byte hash; object: the shape's id
} model_kind;

typedef struct model_entry
{
	model_kind kind;
	uint64_t object;
	uint8_t* bytes; // owned
	size_t size;
	asset_blob** blobs; // references held (owned array)
	int blob_count;
} model_entry;

typedef struct model_registry
{
	model_entry* entries; // in the order they were kept
	int count;
	int capacity;
	// An index by (kind, object): open addressing, entry position + 1 (0: empty), twice the entries'
	// capacity. A world's DescribeWorld finds one entry per mesh shape (up to max_shapes_per_world), which a
	// scan made quadratic. NULL if it could not be made: finds then scan.
	int32_t* slots;
	int slot_capacity;
} model_registry;

// Keep bytes for (kind, object) with references to `blobs` (taken here; the caller keeps its own), replacing
// what was kept for it; ownership of bytes passes to the registry on success. Returns false if memory ran
// out (then nothing changed).
bool model_registry_keep(model_registry* registry, model_kind kind, uint64_t object, uint8_t* bytes, size_t size,
						 asset_blob* const* blobs, int blob_count);
// The entry for (kind, object), or NULL.
const model_entry* model_registry_find(const model_registry* registry, model_kind kind, uint64_t object);
// Forget the entry for (kind, object), if any (its object was destroyed).
void model_registry_forget(model_registry* registry, model_kind kind, uint64_t object);
// Forget every entry (a restore, whose bytes may come from another world with other objects under the
// same ids).
void model_registry_clear(model_registry* registry);
// Forget the entries whose object is no longer in world (a reset, or any replaced world; NULL: all).
void model_registry_prune(model_registry* registry, const sn_world* world);
// Give `to` copies of from's entries (a clone, whose objects keep their ids). Returns false if memory
// ran out (`to` may then hold some of them).
bool model_registry_copy(model_registry* to, const model_registry* from);
// Free every entry and the registry's memory.
void model_registry_free(model_registry* registry);

#endif

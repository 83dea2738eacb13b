// The asset store: content the server keeps outside worlds, named by SHA-256 (proto/content.h), in memory
// and bounded in bytes (max_asset_store_bytes).
//
// Two kinds live here:
// - files clients sent (PutAsset, LoadUrdf.assets), by the hash of their bytes: kept so that loading the
//   same robot again sends nothing new (FindAssets says which a client must send);
// - meshes in the mesh format (GetMesh, GET /assets/HASH), by the hash of the encoded mesh: made from the
//   visual meshes of the robots loaded and from triangle-mesh shapes, served to clients once each.
//
// Content is an immutable blob shared by reference count: the store holds one reference, and so do the
// things that use it (a world's kept model or shape, a load reading a file on a worker, an HTTP response
// being written). A blob with references besides the store's is in use and never dropped. Past the byte
// bound, or past ASSET_STORE_MAX_ENTRIES blobs, the least recently used blobs not in use are dropped, down
// to 7/8 of both bounds where they allow (a client then sends a file again; LoadUrdf says
// ERR_UNKNOWN_ASSET for a hash it no longer has). A new blob that cannot fit even so is refused
// (LIMIT_REACHED). Reference counts and the store change on the
// loop thread only; workers read blobs' bytes while the loop holds references for them.
#ifndef SINEW_SERVER_ASSETS_H
#define SINEW_SERVER_ASSETS_H

#include "content.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Blobs the store holds at most, whatever their bytes: its table grows to twice this, and a client putting many
// tiny files cannot grow it without end (65536: a thousand robots of 60 mesh files).
#define ASSET_STORE_MAX_ENTRIES 65536

typedef enum asset_kind
{
	ASSET_FILE = 0, // a file a client sent, by the hash of its bytes
	ASSET_MESH = 1, // a mesh in the mesh format, by the hash of its encoding
} asset_kind;

typedef struct asset_blob
{
	int refs;
	asset_kind kind;
	bool hashed; // hash holds the SHA-256 of data
	uint8_t hash[WIRE_HASH_SIZE];
	size_t size;
	uint8_t data[]; // 8-byte aligned (a mesh's arrays are read in place)
} asset_blob;

// A blob of `size` bytes with one reference (NULL if memory ran out). Its bytes are uninitialised.
asset_blob* asset_blob_new(asset_kind kind, size_t size);
void asset_blob_ref(asset_blob* blob);
void asset_blob_unref(asset_blob* blob);
// Compute blob->hash from its bytes (any thread, while nobody changes it). False if libcrypto failed.
bool asset_blob_hash(asset_blob* blob);

typedef struct asset_slot
{
	asset_blob* blob; // NULL: empty
	uint64_t used;    // when it was last put or found (the store's clock): least recently used goes first
} asset_slot;

typedef struct asset_store
{
	asset_slot* slots; // open addressing by hash, linear probing; capacity a power of two
	int capacity;
	int count;
	size_t bytes; // of the blobs held
	size_t budget;
	uint64_t clock;
	// Counters for /metrics.
	uint64_t hits;
	uint64_t misses;
	uint64_t evictions;
	uint64_t refusals;
	uint64_t eviction_passes; // scans of the table for blobs to drop
} asset_store;

// An empty store of at most budget bytes. False if memory ran out.
bool asset_store_init(asset_store* store, size_t budget);
// Drop the store's references (blobs still used elsewhere live on until their users let go).
void asset_store_free(asset_store* store);

// The blob of that kind and hash, or NULL; counts as a use (no reference is added: take one to keep it).
asset_blob* asset_store_find(asset_store* store, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE]);
// Whether the store has it, without counting a use.
bool asset_store_has(const asset_store* store, asset_kind kind, const uint8_t hash[WIRE_HASH_SIZE]);

// Keep a hashed blob (the store takes a reference of its own). If an equal blob is there already, that one
// is kept and returned instead (the same content, once). Drops least recently used blobs not in use to
// make room. Returns the stored blob, or NULL when it cannot fit (more than the budget, or everything else
// in use; *why says so) or memory ran out.
asset_blob* asset_store_put(asset_store* store, asset_blob* blob, char* why, size_t why_capacity);

#endif

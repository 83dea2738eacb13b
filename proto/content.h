// Content on the wire that is named by what it is: content addresses (SHA-256, through Debian's libcrypto,
// which libwebsockets already brings) and the mesh format that meshes travel in (GetMesh, GET
// /assets/HASH), shared by the server and the clients.
//
// Why SHA-256 and not a fast hash: the server keeps files and meshes from many clients in one store, keyed
// by hash, and answers a load that names a hash with whatever the store holds under it. With a hash a
// client can collide on purpose (FNV, xxHash), one client could plant a file under the hash of another's
// and change what that other client's robot is made of. A cryptographic hash makes that a preimage attack.
//
// The mesh format (proto/README.md, "Meshes"), all little-endian, every array at a multiple of 4 bytes:
//   0        "SNMS"                      magic
//   4        u32 version                 WIRE_MESH_VERSION
//   8        u32 V                       vertices
//   12       u32 T                       triangles
//   16       u32 P                       parts (0: the mesh has no colours of its own)
//   20       u32 0                       reserved
//   24       f32[3V] positions           m, the mesh's own frame
//   24+12V   f32[3V] normals             unit
//   24+24V   u32[3T] indices             three per triangle, counter-clockwise seen from the front
//   24+24V+12T  P x (u32 first_triangle, u32 triangle_count, u32 has_color, f32 r, g, b, a)
// and nothing after: the size is 24 + 24V + 12T + 28P exactly.
#ifndef SINEW_CONTENT_H
#define SINEW_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Bytes of a SHA-256 content address.
#define WIRE_HASH_SIZE 32
// Characters of its lower-case hexadecimal form (without the terminating zero).
#define WIRE_HASH_HEX 64

// SHA-256 of data[0, size). False only if libcrypto fails (it does not for SHA-256 outside FIPS errors).
bool wire_sha256(const void* data, size_t size, uint8_t out[WIRE_HASH_SIZE]);
// hash as 64 lower-case hexadecimal digits and a zero.
void wire_hash_hex(const uint8_t hash[WIRE_HASH_SIZE], char out[WIRE_HASH_HEX + 1]);
// Parse exactly 64 hexadecimal digits (either case) from text[0, size). False for anything else.
bool wire_hash_parse(const char* text, size_t size, uint8_t out[WIRE_HASH_SIZE]);

#define WIRE_MESH_MAGIC "SNMS"
#define WIRE_MESH_VERSION 1u
#define WIRE_MESH_HEADER_BYTES 24u
#define WIRE_MESH_PART_BYTES 28u
// Vertices, triangles and parts a mesh may have: 2^24 each (the importer's and the core's own bounds are
// lower, 2^21 triangles at most), so every size fits 32 bits of each count and 64 bits of the total.
#define WIRE_MESH_MAX_COUNT (1u << 24)

typedef struct wire_mesh_part
{
	uint32_t first_triangle;
	uint32_t triangle_count;
	bool has_color;
	float rgba[4];
} wire_mesh_part;

// A mesh as arrays (to write one), or as views into a checked buffer (wire_mesh_check: the arrays then
// point into the buffer, unaligned access excluded by the format's layout when the buffer is 4-aligned;
// parts are not viewable in place: read them with wire_mesh_part_at).
typedef struct wire_mesh
{
	uint32_t vertex_count;
	uint32_t triangle_count;
	uint32_t part_count;
	const float* positions;  // [3 * vertex_count]
	const float* normals;    // [3 * vertex_count]
	const uint32_t* indices; // [3 * triangle_count]
	const wire_mesh_part* parts;
} wire_mesh;

// Bytes of a mesh with these counts (0 if a count is above WIRE_MESH_MAX_COUNT).
size_t wire_mesh_size(uint32_t vertex_count, uint32_t triangle_count, uint32_t part_count);
// Write a mesh into out[0, size) (size must be wire_mesh_size of its counts). False if it is not.
bool wire_mesh_write(const wire_mesh* mesh, uint8_t* out, size_t size);
// Check that data[0, size) is a mesh in the format (magic, version, counts, exact size, indices below the
// vertex count, parts within the triangles, finite positions); fill *out with views into data (data must
// be 4-byte aligned for them to be read as arrays). False with a reason otherwise.
bool wire_mesh_check(const uint8_t* data, size_t size, wire_mesh* out, char* why, size_t why_capacity);
// The i-th part of a checked mesh buffer.
wire_mesh_part wire_mesh_part_at(const uint8_t* data, const wire_mesh* mesh, uint32_t index);

#endif

// Collision shapes over the wire: ShapeDefs decoded from CreateBody, CreateShape and CreateArticulation's
// links into core defs and created all or nothing; shapes described back (ShapeInfo in DescribeWorld,
// ContactSide in frames and events); and the mesh a triangle-mesh shape is drawn with, kept in the asset
// store by content hash.
//
// A ShapeDef's hull points and mesh arrays grow with the shape: the command decoder (command.c) gathers
// them, one shape at a time, into a shape_list (a ShapeDef sits inside a oneof, where nanopb cannot
// carry a decode callback of its own, so they arrive through the decode hook).
#ifndef SINEW_SERVER_SHAPES_H
#define SINEW_SERVER_SHAPES_H

#include "assets.h"
#include "sinew.pb.h"

#include "sinew/sinew.h"

#include <pb_decode.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct world_host;
struct server;

// One decoded ShapeDef and the growing arrays of its geometry.
typedef struct wire_shape
{
	int owner;                     // CreateArticulation: the link it goes on; otherwise 0
	sinew_v1_ShapeDef def;         // the fixed fields (its hull and mesh arrays are below)
	double* values;                // Hull.points or TriangleMesh.vertices: x, y, z, ...
	const pb_msgdesc_t* values_of; // which of the two (a oneof that switches starts them again)
	size_t value_count;
	size_t value_capacity;
	uint32_t* indices; // TriangleMesh.indices
	size_t index_count;
	size_t index_capacity;
} wire_shape;

// The shapes of one command, as decoded.
typedef struct shape_list
{
	wire_shape* items;
	int count;
	int capacity;
	wire_shape loose;    // CreateShape's one shape (its ShapeDef is in the command itself)
	wire_shape* current; // the shape whose growing fields are being decoded (NULL: loose)
	int max_per_owner;   // max_shapes_per_body
	int run_owner;       // the owner of the last shapes decoded, and how many it has
	int run;
	bool over_limit; // an owner had more: the rest were skipped (the handler says LIMIT_REACHED)
	bool out_of_memory;
} shape_list;

void shape_list_free(shape_list* list);

// Decode one ShapeDef of a growing field (CreateBody.shapes, or LinkDef.shapes) for `owner` into the list.
// A message whose command switched keeps the last command's shapes only: what came before is decoded
// without the hook (wire_oneof_run, wire_decode_from).
bool shape_list_decode(shape_list* list, pb_istream_t* stream, int owner);
// Decode a growing field of the shape being decoded (Hull.points, TriangleMesh.vertices or .indices);
// false for a field that is not one of those.
bool shape_list_decode_geometry(shape_list* list, pb_istream_t* stream, const pb_field_iter_t* field, bool* handled);

// A wire shape as a core def on `body` (a null id: the world). *points receives an array the def points
// into (free it after the create). Returns 0, or an error code with a reason ("box: half_extents is
// missing").
int32_t shape_def_from_wire(const wire_shape* shape, sn_body_id body, sn_shape_def* out, void** points, char* why,
							size_t why_capacity);

// Whether `adding` more shapes, `adding_triangles` of them in meshes, stay within max_shapes_per_world and
// max_mesh_triangles_per_world. 0, or LIMIT_REACHED with a reason.
int32_t shapes_check_room(const struct world_host* host, int adding, int64_t adding_triangles, char* why,
						  size_t why_capacity);
// Triangles of the world's triangle-mesh shapes (INT64_MAX if memory ran out counting them).
int64_t shapes_world_mesh_triangles(const sn_world* world);
// Triangles of the triangle-mesh shapes in a list (from `first`, `count` of them).
int64_t shapes_mesh_triangles(const wire_shape* shapes, int count);

// Create shapes[0, count) on body, all or nothing: on failure the ones made here are destroyed and the
// error names the shape ("shapes[2]: ..."). out (count ids) receives their ids. `label` starts the reason.
int32_t shapes_create(sn_world* world, sn_body_id body, const wire_shape* shapes, int count, sn_shape_id* out,
					  const char* label, char* why, size_t why_capacity);

// After shapes were created in a host's world: keep the meshes of its triangle-mesh shapes in the asset
// store and the world's registry (so DescribeWorld names them by hash). Best effort: a mesh that does not
// fit is described without one (MeshRef absent) and retried when described.
void shapes_keep_meshes(struct world_host* host, const sn_shape_id* ids, int count);

// Keep a shape's mesh (a hashed blob) in the asset store and the host's registry. The stored blob, or NULL.
asset_blob* shapes_keep_mesh(struct world_host* host, sn_shape_id shape, asset_blob* blob);
// The mesh of a triangle-mesh shape in the mesh format, hashed (NULL if it is not one, or memory ran out).
// Reads the world only: any thread that owns it.
asset_blob* shapes_mesh_blob(const sn_world* world, sn_shape_id shape);
// The kept mesh of a triangle-mesh shape, made and kept now if the registry has none (a restored world).
// NULL if there is none and it cannot be kept.
asset_blob* shapes_mesh_of(struct world_host* host, sn_shape_id shape);

// What a shape is on, for contacts and contact events (ids of destroyed bodies are given as they are).
void shapes_side(const sn_world* world, sn_shape_id shape, sn_body_id body, sinew_v1_ContactSide* out);
// A shape as a ShapeInfo (mesh: the MeshRef of `mesh`, which may be NULL).
void shapes_info(const sn_world* world, sn_shape_id shape, const asset_blob* mesh, sinew_v1_ShapeInfo* out);
// A mesh blob's MeshRef.
void shapes_mesh_ref(const asset_blob* mesh, sinew_v1_MeshRef* out);

#endif

// Triangle meshes: validation, the bounding volume hierarchy over their triangles, active edges, and
// the BVH queries the narrowphase and the ray casts walk (mesh.c has the derivations).
#ifndef SINEW_COLLIDE_MESH_H
#define SINEW_COLLIDE_MESH_H

#include "alloc.h"
#include "collide/geometry.h"

// An edge between two triangles is active (keeps the normal of a contact on it) only where they meet
// at a convex angle of more than 5 degrees: cos(5 deg). Flatter or concave edges are inside a surface
// (Jolt's ActiveEdges uses the same rule and default).
#define COLLIDE_MESH_ACTIVE_EDGE_COS 0.99619469809174553
// A triangle is degenerate when its two shorter edges' cross product is at most this fraction of its
// longest edge squared (height / length <= 1e-10): its normal would carry relative rounding errors of
// 1e-6 or more.
#define COLLIDE_MESH_DEGENERATE_RATIO 1e-10

// Builds a mesh from vertex_count vertices (local frame, m) and triangle_count triangles (3 indices each,
// counter-clockwise around the front face) into one allocation. Errors with a one-line detail:
// SN_ERR_INVALID_ARGUMENT (NULL arrays, no triangles, an index out of range, a degenerate triangle, a
// coordinate beyond COLLIDE_MAX_SIZE), SN_ERR_NOT_FINITE, SN_ERR_CAPACITY (over COLLIDE_MESH_MAX_*),
// SN_ERR_NO_MEMORY. *out is set only on success; scratch is freed before returning.
sn_error mesh_build(sn_memory* memory, const sn_vec3* vertices, int vertex_count, const int32_t* indices,
					int triangle_count, collide_mesh** out, char* detail, size_t detail_capacity);

// Frees a mesh from mesh_build (NULL is ignored).
void mesh_destroy(sn_memory* memory, collide_mesh* mesh);

// The three corners of a triangle.
static inline void mesh_triangle(const collide_mesh* mesh, int triangle, sn_vec3 out[3])
{
	const collide_triangle* t = &mesh->triangles[triangle];
	out[0] = mesh->vertices[t->v[0]];
	out[1] = mesh->vertices[t->v[1]];
	out[2] = mesh->vertices[t->v[2]];
}

// Called for each triangle whose box overlaps the query; return false to stop.
typedef bool (*bvh_visit_fn)(void* context, int triangle);

// Visits the triangles whose boxes overlap box (mesh frame), in the BVH's depth-first order (so the same
// query visits the same triangles in the same order). No allocation.
void bvh_query(const collide_mesh* mesh, collide_aabb box, bvh_visit_fn visit, void* context);

// Called for each triangle whose leaf the ray reaches, with the ray's current end (fraction of the
// translation). Returns the new end: smaller to clip the ray at a hit, the same to go on, 0 to stop.
typedef double (*bvh_ray_fn)(void* context, int triangle, double max_fraction);

// Walks the leaves the segment origin + t translation, t in [0, max_fraction], passes through (mesh
// frame), nearer child first. No allocation.
void bvh_ray_cast(const collide_mesh* mesh, sn_vec3 origin, sn_vec3 translation, double max_fraction, bvh_ray_fn visit,
				  void* context);

#endif

// Shape geometry: what a world stores for each shape, the limits that bound it, and its validation.
//
// Every shape is defined in its own local frame; a pose (sn_transform) places it in the world. A shape
// is solid: a point inside it is inside the material, which the narrowphase, the ray casts and the
// mass properties all agree on.
//
//   sphere    radius r about the origin
//   capsule   the segment from (0, 0, -h) to (0, 0, h) swept by a sphere of radius r (MuJoCo's and
//             Jolt's convention: half-length h of the segment along local z, total length 2 h + 2 r)
//   box       half-extents (hx, hy, hz) about the origin, faces normal to the local axes
//   cylinder  radius r about local z, from z = -h to z = h (half-height h)
//   hull      a convex polyhedron computed from points (hull.c): vertices, faces as polygons with their
//             planes, half-edges and edges, which is what separating axes, face clipping and the
//             divergence theorem need (after Gregorius, "The Separating Axis Test between Convex
//             Polyhedra", GDC 2013, and Barber et al. 1996 for the hull itself)
//   mesh      triangles over shared vertices with a bounding volume hierarchy (mesh.c); static geometry
//             only (a triangle soup has no inside, so no mass and no sensible deep penetration)
//   plane     the half-space normal . x <= offset (solid below); static only
//
// Sizes are plain doubles in metres. Validation (collide_shape_check, hull_build, mesh_build) returns a
// typed sn_error and writes one line naming the field and value into a caller's buffer, as
// sn_world_def_check does; it never changes anything on failure.
//
// Hulls and meshes are immutable once built and live in one allocation each (hull.h, mesh.h), so a
// world can share one between many shapes and free it with one call.
#ifndef SINEW_COLLIDE_GEOMETRY_H
#define SINEW_COLLIDE_GEOMETRY_H

#include "collide/aabb.h"

#include "sinew/base.h"
#include "sinew/math.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Limits, each with its reason.
//
// Hull vertices. A hull's support function and face search are linear in its vertices and run for every
// contact point every step; a hull of a robot link needs tens, not thousands, to match its mesh within a
// millimetre. PhysX caps hulls at 255 vertices, Jolt's builder at 256 by default. Indices then fit in
// 16 bits. A point cloud whose hull has more vertices gets the hull of the 256 most extreme points
// (quickhull adds the farthest point first, so this is an inner approximation that keeps the shape;
// collide_hull.simplified says it happened).
#define COLLIDE_HULL_MAX_VERTICES 256
// Input points to one hull build: bounds the build's scratch (about 40 bytes a point). A URDF mesh of a
// million vertices is far beyond any link's need; the model importer should decimate first.
#define COLLIDE_HULL_MAX_POINTS (1 << 20)
// Triangles of one mesh: 2^21 (about 120 MB with its vertices and BVH at 56 bytes a triangle). Bounds
// what one model may make a server hold; terrain and robot environments stay well under this.
#define COLLIDE_MESH_MAX_TRIANGLES (1 << 21)
// Mesh vertices: at most three per triangle.
#define COLLIDE_MESH_MAX_VERTICES (3 * COLLIDE_MESH_MAX_TRIANGLES)
// Largest size of any shape (m) and largest |offset| of a plane: 1e6 m. Beyond it the relative
// tolerances of the narrowphase (about 1e-9 of a shape's size) exceed the sub-millimetre detail a
// contact needs next to smaller shapes, and squared distances lose their meaning against each other.
#define COLLIDE_MAX_SIZE 1.0e6
// Smallest size of a primitive (m): 1e-9 m. Below it squared sizes underflow the tolerances GJK and the
// clipper use, and no physical body is that small.
#define COLLIDE_MIN_SIZE 1.0e-9

typedef enum collide_shape_type
{
	COLLIDE_SPHERE = 0,
	COLLIDE_CAPSULE = 1,
	COLLIDE_BOX = 2,
	COLLIDE_CYLINDER = 3,
	COLLIDE_HULL = 4,
	COLLIDE_MESH = 5,  // static only
	COLLIDE_PLANE = 6, // static only
	COLLIDE_SHAPE_TYPE_COUNT
} collide_shape_type;

// Name of a shape type in lower case ("sphere", ...), or "unknown".
const char* collide_shape_type_name(collide_shape_type type);

typedef struct collide_sphere
{
	double radius; // m, > 0
} collide_sphere;

typedef struct collide_capsule
{
	double radius;      // m, > 0
	double half_length; // half-length of the core segment along local z, m, >= 0 (0 is a sphere)
} collide_capsule;

typedef struct collide_box
{
	sn_vec3 half_extents; // m, each > 0
} collide_box;

typedef struct collide_cylinder
{
	double radius;      // m, > 0
	double half_height; // m, > 0
} collide_cylinder;

// A plane: points x with normal . x = offset. The solid is the side normal . x <= offset.
typedef struct collide_plane
{
	sn_vec3 normal; // unit
	double offset;  // m
} collide_plane;

// A half-edge of a hull. Each face's half-edges are stored together, counter-clockwise seen from
// outside (around the face's outward normal); the next half-edge of e is the following one in its face,
// wrapping to the face's first.
typedef struct collide_hull_edge
{
	uint16_t origin; // the vertex it starts at
	uint16_t twin;   // the same edge walked the other way, on the neighbouring face
	uint16_t face;   // the face it bounds
	uint16_t edge;   // its undirected edge, shared with the twin
} collide_hull_edge;

typedef struct collide_hull_face
{
	uint16_t first; // first half-edge
	uint16_t count; // half-edges (= vertices) of the polygon, >= 3
} collide_hull_face;

// A convex hull (hull.c). All arrays live in the hull's one allocation; indices are 16-bit.
typedef struct collide_hull
{
	int vertex_count;    // <= COLLIDE_HULL_MAX_VERTICES
	int face_count;      // polygons after merging coplanar triangles
	int half_edge_count; // 2 * edge_count
	int edge_count;      // undirected; V - E + F = 2
	sn_vec3* vertices;
	collide_hull_face* faces;
	collide_plane* planes; // one per face, outward, every vertex on or below it
	collide_hull_edge* half_edges;
	uint16_t* edge_half;   // [edge_count] one half-edge of each undirected edge
	uint16_t* vertex_half; // [vertex_count] one half-edge leaving each vertex
	collide_aabb bounds;   // local frame
	sn_vec3 centroid;      // centre of volume, strictly inside
	double size;           // largest extent of bounds, m (the scale of relative tolerances)
	double tolerance;      // the build's coplanarity tolerance, m
	bool simplified;       // more points were on the hull than COLLIDE_HULL_MAX_VERTICES
	size_t bytes;          // of the allocation
} collide_hull;

typedef struct collide_triangle
{
	int32_t v[3]; // vertex indices, counter-clockwise around the front normal
} collide_triangle;

// A node of a mesh's bounding volume hierarchy, in depth-first order: an internal node's first child
// is the next node, its second child is at `right`.
typedef struct collide_bvh_node
{
	collide_aabb aabb;
	int32_t right; // internal: index of the second child; leaf: -1
	int32_t first; // leaf: first slot in collide_mesh.order
	int32_t count; // leaf: triangles (1..COLLIDE_BVH_LEAF_SIZE); internal: 0
} collide_bvh_node;

// Triangles per BVH leaf: four, as Jolt's and Embree's defaults (a leaf's triangles are tested one by
// one, so more saves nodes and costs tests).
#define COLLIDE_BVH_LEAF_SIZE 4
// BVH depth bound: the build splits at the median, so depth <= ceil(log2(triangles / leaf)) + 1, which is
// 21 at the triangle limit. Queries walk it with a fixed stack of this size.
#define COLLIDE_BVH_MAX_DEPTH 48

// Triangle edge flags (collide_mesh.edge_flags): bit k set when edge k (v[k] to v[k + 1]) is active,
// that is, a contact whose feature is that edge keeps its own normal. Edges shared with a coplanar or
// concave neighbour are inactive: a contact there takes the triangle's face normal, so a box sliding
// over a flat floor of many triangles does not catch on their shared edges (mesh.c explains).
#define COLLIDE_EDGE_ACTIVE(k) (1u << (k))

// A triangle mesh (mesh.c). All arrays live in the mesh's one allocation.
typedef struct collide_mesh
{
	int vertex_count;
	int triangle_count;
	int node_count;
	int depth; // of the BVH (a leaf root is depth 1)
	sn_vec3* vertices;
	collide_triangle* triangles; // in the caller's order: a triangle's index is its place there
	uint8_t* edge_flags;         // [triangle_count] COLLIDE_EDGE_ACTIVE bits
	collide_bvh_node* nodes;     // [node_count], the root first
	int32_t* order;              // [triangle_count] triangle index of each leaf slot
	collide_aabb bounds;         // local frame
	double size;                 // largest extent of bounds, m
	size_t bytes;
} collide_mesh;

// A shape's geometry: a tagged union. Hulls and meshes are referenced, not copied; the world keeps them
// alive as long as a shape uses them.
typedef struct collide_shape
{
	collide_shape_type type;
	union
	{
		collide_sphere sphere;
		collide_capsule capsule;
		collide_box box;
		collide_cylinder cylinder;
		const collide_hull* hull;
		const collide_mesh* mesh;
		collide_plane plane;
	};
} collide_shape;

collide_shape collide_make_sphere(double radius);
collide_shape collide_make_capsule(double radius, double half_length);
collide_shape collide_make_box(sn_vec3 half_extents);
collide_shape collide_make_cylinder(double radius, double half_height);
collide_shape collide_make_hull(const collide_hull* hull);
collide_shape collide_make_mesh(const collide_mesh* mesh);
// The plane normal . x = offset; the normal is normalised (collide_shape_check rejects a zero one).
collide_shape collide_make_plane(sn_vec3 normal, double offset);

// Checks a shape's sizes: finite (SN_ERR_NOT_FINITE), radii and extents positive (SN_ERR_NEGATIVE_VALUE
// when below zero, SN_ERR_INVALID_ARGUMENT when zero or below COLLIDE_MIN_SIZE), no size above
// COLLIDE_MAX_SIZE (SN_ERR_INVALID_ARGUMENT), a unit plane normal (SN_ERR_ZERO_AXIS for a zero one,
// SN_ERR_INVALID_ARGUMENT when not of unit length within 1e-9), hull and mesh pointers present. On
// failure writes one line naming the field and value into detail (if detail_capacity > 0).
sn_error collide_shape_check(const collide_shape* shape, char* detail, size_t detail_capacity);

// Whether a type may move (not a mesh or a plane).
static inline bool collide_type_is_dynamic(collide_shape_type type)
{
	return type != COLLIDE_MESH && type != COLLIDE_PLANE;
}

// A convex solid (sphere, capsule, box, cylinder, hull): what GJK/EPA and the mass helpers accept.
static inline bool collide_type_is_convex(collide_shape_type type)
{
	return type <= COLLIDE_HULL;
}

// Largest extent of the shape (m): the length that relative tolerances scale with. Infinite for a plane.
double collide_shape_size(const collide_shape* shape);

// Writes a one-line detail if there is room (printf-style). Shared by the builders.
void collide_detail(char* detail, size_t capacity, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif

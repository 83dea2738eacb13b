// Convex solids as GJK, EPA and the face clipper see them (support.c): a core with a support function
// and a supporting face, and a radius that rounds the core.
#ifndef SINEW_COLLIDE_SUPPORT_H
#define SINEW_COLLIDE_SUPPORT_H

#include "collide/geometry.h"

typedef enum convex_kind
{
	CONVEX_POINT = 0,    // a sphere's core: the origin
	CONVEX_SEGMENT = 1,  // a capsule's core: (0, 0, -h) to (0, 0, h)
	CONVEX_BOX = 2,      // half extents
	CONVEX_CYLINDER = 3, // radius and half-height about z
	CONVEX_HULL = 4,
	CONVEX_TRIANGLE = 5, // one triangle of a mesh, two-sided
} convex_kind;

typedef struct collide_convex
{
	convex_kind kind;
	double radius;            // the solid is the core swept by a sphere of this radius, m
	sn_vec3 half;             // segment (0, 0, h); box half extents; cylinder (r, r, h)
	const collide_hull* hull; // CONVEX_HULL
	sn_vec3 tri[3];           // CONVEX_TRIANGLE corners
	sn_vec3 tri_normal;       // CONVEX_TRIANGLE unit normal of (tri[1] - tri[0]) x (tri[2] - tri[0])
	double size;              // largest extent of the solid, m: the scale of relative tolerances
} collide_convex;

// The convex view of a sphere, capsule, box, cylinder or hull.
collide_convex convex_from_shape(const collide_shape* shape);
// A triangle (corners counter-clockwise around its front normal).
collide_convex convex_triangle(sn_vec3 a, sn_vec3 b, sn_vec3 c);

// The point of the core farthest along d (local frame; the radius is not included). Deterministic:
// among equals the same point is returned for the same d.
sn_vec3 convex_support(const collide_convex* c, sn_vec3 d);
// A point strictly inside the core (or on it, for a point or segment core), local frame.
sn_vec3 convex_center(const collide_convex* c);

// Feature codes: 2 bits of type and 14 of index, so that a contact point's id (manifold.h) names the
// pair of features it comes from.
#define COLLIDE_FEATURE_VERTEX 0x4000u
#define COLLIDE_FEATURE_EDGE 0x8000u
#define COLLIDE_FEATURE_FACE 0xC000u
#define COLLIDE_FEATURE_INDEX(feature) ((feature)&0x3FFFu)
#define COLLIDE_FEATURE_TYPE(feature) ((feature)&0xC000u)

static inline uint16_t collide_feature(uint32_t type, uint32_t index)
{
	return (uint16_t)(type | (index & 0x3FFFu));
}

// Points of a cylinder cap when it acts as a face: a regular octagon inscribed in the rim (Jolt uses a
// polygon as well). It loses at most r (1 - cos 22.5 deg) = 0.076 r of the disc at its edge midpoints,
// which only trims where the corners of a manifold sit, and four of eight points survive reduction.
#define COLLIDE_CYLINDER_CAP_POINTS 8

// The most points a supporting face offers the clipper: 64. A hull face with more vertices (a finely
// tessellated cap) is represented by every k-th of them, an inscribed polygon whose edges are at most
// the sagitta of the skipped arc inside the true face; four points survive reduction anyway, and the
// clipper's buffers stay small enough for the stack (about 10 KB).
#define COLLIDE_FACE_MAX 64

// The feature of a convex that supports it along a direction: a point (count 1), a segment (count 2)
// or a polygon (count >= 3, counter-clockwise around its outward normal). Points include the radius
// (pushed out along the direction), so they lie on the solid's surface.
typedef struct collide_face
{
	int count;
	sn_vec3 normal; // outward unit normal (polygons only)
	sn_vec3 points[COLLIDE_FACE_MAX];
	uint16_t vertex_feature[COLLIDE_FACE_MAX]; // feature of point k
	uint16_t edge_feature[COLLIDE_FACE_MAX];   // feature of the edge from point k to point k + 1
	uint16_t face_feature;                     // feature of the polygon (or of the segment)
} collide_face;

// The supporting feature of c along d (local frame, d need not be unit).
void convex_face(const collide_convex* c, sn_vec3 d, collide_face* out);

// Box features (shared with narrow_box.c): vertex (sx, sy, sz > 0 bits), edge along axis with the
// signs of the other two, face 2 axis + (sign > 0).
static inline uint16_t box_vertex_feature(int px, int py, int pz)
{
	return collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)(px | (py << 1) | (pz << 2)));
}
static inline uint16_t box_edge_feature(int axis, int p1, int p2)
{
	return collide_feature(COLLIDE_FEATURE_EDGE, (uint32_t)(4 * axis + p1 + 2 * p2));
}
static inline uint16_t box_face_feature(int axis, int positive)
{
	return collide_feature(COLLIDE_FEATURE_FACE, (uint32_t)(2 * axis + positive));
}

// The face of a box (half extents h) with outward normal sign * e_axis: 4 corners counter-clockwise
// around that normal, with features.
void box_face(sn_vec3 h, int axis, int positive, collide_face* out);

#endif

// Contact manifolds: the output of the narrowphase (manifold.c holds the face clipper and the point
// reduction every pair routine shares).
//
// A manifold is what one shape pair touches with along one normal: up to four points, each with its
// world position midway between the two surfaces, its separation along the normal (negative when the
// shapes overlap) and a feature id. With n the normal (from A to B) and s a point's separation, the point
// on A's surface is point - s/2 n and the point on B's is point + s/2 n.
//
// Feature ids follow Box2D's b2ContactFeature idea: the low 32 bits are (feature of A) << 16 |
// (feature of B), each a 16-bit code of type (vertex, edge, face) and index (support.h); a clipped point
// is named by the reference feature and the incident feature that made it, so while the same features
// touch, the id stays the same and the solver can warm-start the point. For a mesh, the high 32 bits
// carry the triangle index + 1 (0 for convex pairs). A single contact point that no face produced (a
// sphere, an edge crossing an edge) has id 0 unless its routine names its features.
#ifndef SINEW_COLLIDE_MANIFOLD_H
#define SINEW_COLLIDE_MANIFOLD_H

#include "collide/support.h"

// Points per manifold: four hold a box resting on a face (Box2D, Bullet, Jolt and PhysX use 4 too).
#define COLLIDE_MANIFOLD_POINTS 4

typedef struct collide_point
{
	sn_vec3 point;     // world, midway between the surfaces, m
	double separation; // along the normal, m; < 0 overlapping
	uint64_t id;       // feature pair; stable while the same features touch
} collide_point;

typedef struct collide_manifold
{
	sn_vec3 normal; // world unit normal from shape A to shape B
	collide_point points[COLLIDE_MANIFOLD_POINTS];
	int point_count;
} collide_manifold;

static inline uint32_t collide_pair_id(uint16_t feature_a, uint16_t feature_b)
{
	return ((uint32_t)feature_a << 16) | feature_b;
}

// A polygon face serves as the reference of a clipped manifold only if its outward normal is the contact
// normal to within 1e-3 rad (this cosine): that is, the contact is a face contact. EPA and GJK give a
// face contact's normal to rounding on boxes and to about 1e-6 rad on hull faces merged within the hull
// tolerance; an edge or vertex contact near a face is tilted by more, and clipping it against the face
// would measure its depth along the wrong direction. The face's own normal then replaces the contact
// normal, so a resting box keeps the same normal bit for bit.
#define COLLIDE_FACE_COS 0.99999950000004167

// Points of one manifold closer than this fraction of the pair's size (in the tangent plane, or to the
// line or triangle of the points kept so far) are one point: 1e-6, a micrometre on a metre-sized body.
// Clipping makes such near-duplicates where a corner lies on, or within rounding of, a side plane, and
// two points that close only make the solver's contact matrix singular.
#define COLLIDE_MERGE_RELATIVE 1e-6

// A candidate point before reduction.
typedef struct manifold_candidate
{
	sn_vec3 point;
	double separation;
	uint64_t id;
} manifold_candidate;

// Reduces count candidates to at most COLLIDE_MANIFOLD_POINTS (Box2D's and Bullet's policy): the
// deepest; then the farthest from it in the tangent plane; then the one spanning the largest triangle
// with those two; then the one that adds the most area to that triangle. Candidates within merge
// distance (m) of a kept point in the tangent plane are dropped (the clipper makes duplicates where a
// vertex lies on a side plane). Ties go to the earlier candidate. Writes the kept points into out.
int manifold_reduce(const manifold_candidate* candidates, int count, sn_vec3 normal, double merge, collide_point* out);

// The manifold of two convex solids from their supporting faces along a known contact normal n (A to B)
// in one frame (the caller's): if one of the faces is a polygon within COLLIDE_FACE_COS of n (A's facing
// n, B's facing -n; A's preferred on a tie within 1e-9, for steadiness), the other face is clipped
// against its side planes and the points whose separation is below margin are kept and reduced to four,
// provided their deepest agrees with the given separation within COLLIDE_MERGE_RELATIVE of the size (it
// does for a face contact; a contact at the face's border that clipping cannot see keeps its one point).
// Two segments nearly parallel (within 2 degrees) give their overlap's two ends. Otherwise, or if
// clipping leaves nothing, the single point fallback (point_a on A, point_b on B, separation, id 0).
// Returns the points in that same frame (the caller transforms them). The normal written is n, or the
// reference face's normal.
void manifold_from_faces(const collide_face* face_a, const collide_face* face_b, sn_vec3 n, double separation,
						 sn_vec3 point_a, sn_vec3 point_b, double margin, double size, collide_manifold* m);

// The clipping step alone, with the reference face chosen by the caller (box-box knows it from SAT):
// the incident face (point, segment or polygon) clipped against the reference polygon's side planes,
// points with separation below margin reduced to four. Returns the point count (0 if none); the normal
// is the reference normal, turned to point from A to B. size scales the merge distance (COLLIDE_MERGE_RELATIVE).
int manifold_clip(const collide_face* ref, const collide_face* inc, bool ref_is_a, double margin, double size,
				  collide_manifold* m);

// Places a manifold computed in a local frame into the world: points and normal through xf.
void manifold_transform(collide_manifold* m, sn_transform xf);

// Swaps the roles of A and B: flips the normal and exchanges the feature halves of every id.
void manifold_flip(collide_manifold* m);

#endif

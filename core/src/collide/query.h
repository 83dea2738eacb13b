// Queries on placed shapes: ray casts (raycast.c), closest points and distance, overlap (query.c).
#ifndef SINEW_COLLIDE_QUERY_H
#define SINEW_COLLIDE_QUERY_H

#include "collide/geometry.h"

typedef struct collide_ray_hit
{
	double fraction;  // of the ray's translation, in [0, max_fraction]
	sn_vec3 point;    // world, m
	sn_vec3 normal;   // world unit surface normal at the hit, facing the ray
	int32_t triangle; // a mesh's triangle index; -1 for other shapes
} collide_ray_hit;

// The first point where the segment origin + t translation, t in [0, max_fraction] (world), enters the
// shape at xf. A ray that starts inside a solid does not hit it (Box2D's convention: a range sensor inside
// a robot's own link sees past it); a mesh has no inside and is hit from either side. False on a miss.
// A zero translation never hits.
bool collide_ray_cast(const collide_shape* shape, sn_transform xf, sn_vec3 origin, sn_vec3 translation,
					  double max_fraction, collide_ray_hit* hit);

typedef struct collide_distance_output
{
	double distance; // m: >= 0 apart; < 0 overlapping (minus the penetration depth)
	sn_vec3 point_a; // on A's surface, world
	sn_vec3 point_b; // on B's surface, world
	sn_vec3 normal;  // unit, from A to B (moving B along it by -distance separates them when overlapping)
	int iterations;  // GJK's (and EPA's) iterations
} collide_distance_output;

// Closest points of two convex shapes (sphere, capsule, box, cylinder, hull) by GJK, of a plane and a
// convex shape, or of a mesh and a convex shape (its nearest triangle); when they overlap, the penetration
// depth by EPA (against a mesh: the depth into the triangle it overlaps most, a mesh having no inside).
// False (and nothing written) for two static shapes (planes and meshes).
bool collide_distance(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb,
					  collide_distance_output* out);

// Whether two shapes overlap (touching counts): GJK for convex pairs, support planes for a plane, the BVH
// and GJK per triangle for a mesh. Static pairs (plane or mesh with plane or mesh) give false.
bool collide_overlap(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb);

#endif

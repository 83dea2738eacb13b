// GJK distance between convex cores and EPA penetration of rounded convex solids (gjk.c has the
// derivation). Everything is expressed in A's local frame; b_in_a places B there. No allocation: the
// simplex and the EPA polytope live on the stack.
#ifndef SINEW_COLLIDE_GJK_H
#define SINEW_COLLIDE_GJK_H

#include "collide/support.h"

typedef struct gjk_vertex
{
	sn_vec3 w; // a - b: a point of the Minkowski difference A - B
	sn_vec3 a; // support point of A
	sn_vec3 b; // support point of B (in A's frame)
} gjk_vertex;

typedef struct gjk_simplex
{
	gjk_vertex v[4];
	double bary[4]; // barycentric weights of the closest point
	int count;
} gjk_simplex;

typedef struct gjk_output
{
	sn_vec3 point_a; // closest point on A's core, A's frame
	sn_vec3 point_b; // closest point on B's core, A's frame
	double distance; // between the cores, m; 0 when they overlap (or touch within the tolerance)
	int iterations;
	gjk_simplex simplex; // the final simplex, which EPA starts from
} gjk_output;

// GJK stops when the lower bound on the distance is within this fraction of the upper bound
// (van den Bergen's termination): 1e-12, a few hundred roundings of a double.
#define GJK_RELATIVE_TOLERANCE 1e-12
// Cores closer than this fraction of the larger solid's size count as touching (EPA takes over, since
// the direction between witness points is no longer reliable): 1e-10.
#define GJK_TOUCH_TOLERANCE 1e-10
// Iteration bound (polytopes converge in a handful; curved cores in tens).
#define GJK_MAX_ITERATIONS 96

// Distance between the cores of a and b (radii not included).
void gjk_distance(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, gjk_output* out);

typedef struct epa_output
{
	sn_vec3 normal;  // unit, from A to B (moving B by depth along it separates the solids), A's frame
	double depth;    // penetration depth of the rounded solids, m (negative: apart by that much)
	sn_vec3 point_a; // deepest point of A in B, A's frame
	sn_vec3 point_b; // the matching point of B's surface, A's frame
	int iterations;
} epa_output;

// EPA stops when a support point is within this fraction of the solids' size beyond the closest face:
// 1e-10 (exact for polytopes, where the support lands on the face; curved solids converge to it within
// the iteration bound).
#define EPA_RELATIVE_TOLERANCE 1e-10
#define EPA_MAX_VERTICES 128
#define EPA_MAX_FACES (2 * EPA_MAX_VERTICES)

// Penetration of the rounded solids (radius included) starting from GJK's simplex. False only when no
// starting polytope can be formed (the Minkowski difference is flat), which rounded or full-dimensional
// solids never give.
bool epa_penetration(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, const gjk_simplex* start,
					 epa_output* out);

#endif

// Convex hulls from points (quickhull), and the queries on a built hull that the narrowphase uses.
// The algorithm, its tolerance and the face merging are described at the top of hull.c.
#ifndef SINEW_COLLIDE_HULL_H
#define SINEW_COLLIDE_HULL_H

#include "alloc.h"
#include "collide/geometry.h"

// Relative coplanarity tolerance of a hull build: a point closer than this fraction of the cloud's
// extent to the hull so far counts as on it, and adjacent triangles within it of one plane merge into a
// polygon. 1e-6: above the noise of float-precision mesh files (about 6e-8 relative), which must not
// split a flat face into slivers, and far below anything a contact can feel (1 micrometre on a 1 m link).
#define COLLIDE_HULL_RELATIVE_TOLERANCE 1e-6

// Builds the convex hull of count points (local frame, m) into one allocation through memory. Errors,
// with a one-line detail: SN_ERR_INVALID_ARGUMENT (points NULL, fewer than 4 points, all points within
// the tolerance of each other, of one line or of one plane), SN_ERR_NOT_FINITE (a coordinate is NaN or
// infinite), SN_ERR_CAPACITY (more than COLLIDE_HULL_MAX_POINTS points), SN_ERR_NO_MEMORY. *out is set
// only on success. Scratch memory is freed before returning.
sn_error hull_build(sn_memory* memory, const sn_vec3* points, int count, collide_hull** out, char* detail,
					size_t detail_capacity);

// Frees a hull from hull_build (NULL is ignored).
void hull_destroy(sn_memory* memory, collide_hull* hull);

// Index of the vertex farthest along d (the first of equals, so the choice is deterministic).
int hull_support_vertex(const collide_hull* hull, sn_vec3 d);

// The face whose outward normal is most aligned with d among the faces around the support vertex of d:
// the face a contact along d rests on (it always holds the deepest vertex). Returns its index.
int hull_support_face(const collide_hull* hull, sn_vec3 d);

// Checks a hull's invariants (for tests): twins pair up, every face is a closed loop of >= 3 half-edges,
// V - E + F = 2, every vertex on or below every face plane within the tolerance, faces convex. False
// with a detail line on the first violation.
bool hull_validate(const collide_hull* hull, char* detail, size_t detail_capacity);

#endif

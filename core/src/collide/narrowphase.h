// Narrowphase: contact manifolds between two placed shapes. One function per pair family, and one
// dispatch (narrowphase.c) that picks it by a switch on the two types (a tagged union, not a table of
// function pointers, so the call graph stays visible).
//
//   narrow_plane.c    plane against sphere, capsule, box, cylinder, hull (closed forms)
//   narrow_round.c    sphere and capsule against each other (closed forms)
//   narrow_box.c      sphere, capsule and box against a box (closed forms; separating axes for box-box)
//   narrow_convex.c   any two convex solids: GJK/EPA for the normal, face clipping for the points
//   narrow_mesh.c     a triangle mesh against a convex solid: BVH query, per-triangle GJK/EPA, active
//                     edges, merge and reduce
//
// Every routine takes a speculative margin (m, >= 0): it reports points whose separation is below the
// margin, so a solver sees a gap closing before it closes (Catto, "Continuous Collision", GDC 2013:
// speculative contacts). A pair farther apart than the margin yields no points. Normals point from the
// first shape to the second. Canonical order (the order the pair routines take): plane, mesh, sphere,
// capsule, box, cylinder, hull; the dispatch swaps and flips as needed.
#ifndef SINEW_COLLIDE_NARROWPHASE_H
#define SINEW_COLLIDE_NARROWPHASE_H

#include "collide/manifold.h"

// Manifolds one shape pair can produce: one for a convex pair; a mesh pair gives one per distinct normal
// (a box in the corner of a floor and a wall touches with two) up to this bound, the deepest kept.
#define COLLIDE_MAX_MANIFOLDS 4

// The manifolds of shapes a at xa and b at xb (world poses): writes up to COLLIDE_MAX_MANIFOLDS into
// out and returns how many have points. Pairs of static geometry (plane or mesh with plane or mesh)
// give 0. Shapes must have passed collide_shape_check. No allocation.
int collide_shapes(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb, double margin,
				   collide_manifold* out);

// ---- pair families (A and B in canonical order; m->point_count = 0 when apart beyond the margin) ----

void collide_plane_sphere(const collide_plane* a, sn_transform xa, const collide_sphere* b, sn_transform xb,
						  double margin, collide_manifold* m);
void collide_plane_capsule(const collide_plane* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
						   double margin, collide_manifold* m);
void collide_plane_box(const collide_plane* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
					   collide_manifold* m);
void collide_plane_cylinder(const collide_plane* a, sn_transform xa, const collide_cylinder* b, sn_transform xb,
							double margin, collide_manifold* m);
void collide_plane_hull(const collide_plane* a, sn_transform xa, const collide_hull* b, sn_transform xb, double margin,
						collide_manifold* m);

void collide_sphere_sphere(const collide_sphere* a, sn_transform xa, const collide_sphere* b, sn_transform xb,
						   double margin, collide_manifold* m);
void collide_sphere_capsule(const collide_sphere* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
							double margin, collide_manifold* m);
void collide_capsule_capsule(const collide_capsule* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
							 double margin, collide_manifold* m);

void collide_sphere_box(const collide_sphere* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
						collide_manifold* m);
void collide_capsule_box(const collide_capsule* a, sn_transform xa, const collide_box* b, sn_transform xb,
						 double margin, collide_manifold* m);
void collide_box_box(const collide_box* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
					 collide_manifold* m);

// Any two convex solids by GJK/EPA and face clipping: the routine for every pair without a closed form
// (cylinders, hulls, mesh triangles), and the cross-check of the closed forms in the tests.
void collide_convex_pair(const collide_convex* a, sn_transform xa, const collide_convex* b, sn_transform xb,
						 double margin, collide_manifold* m);
// The same for two convex shapes (sphere, capsule, box, cylinder, hull).
void collide_convex_shapes(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb,
						   double margin, collide_manifold* m);

// The two steps of collide_convex_pair, for the mesh routine, which corrects the normal in between.
// Frame: A's local frame, with b_in_a placing B there; points on the rounded surfaces.
typedef struct convex_contact
{
	sn_vec3 normal;    // unit, A to B
	double separation; // m, < 0 overlapping
	sn_vec3 point_a;   // on A's surface
	sn_vec3 point_b;   // on B's surface
} convex_contact;

// False when the solids are apart by the margin or more.
bool convex_contact_find(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, double margin,
						 convex_contact* out);
// The manifold from the supporting faces along the contact's normal (A's frame).
void convex_contact_manifold(const collide_convex* a, const collide_convex* b, sn_transform b_in_a,
							 const convex_contact* contact, double margin, collide_manifold* m);

// A mesh against a convex solid (sphere, capsule, box, cylinder, hull): up to COLLIDE_MAX_MANIFOLDS
// manifolds, returns how many.
int collide_mesh_convex(const collide_mesh* a, sn_transform xa, const collide_shape* b, sn_transform xb, double margin,
						collide_manifold* out);

// Closest points between segments p0-p1 and q0-q1 (Ericson 5.1.9): parameters s and t in [0, 1] and the
// points. Degenerate segments (points) are handled.
void collide_segment_closest(sn_vec3 p0, sn_vec3 p1, sn_vec3 q0, sn_vec3 q1, double* s, double* t, sn_vec3* cp,
							 sn_vec3* cq);

#endif

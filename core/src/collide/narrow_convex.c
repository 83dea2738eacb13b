// Any two convex solids: GJK/EPA for the contact normal, face clipping for the manifold (Jolt's
// CollideConvexVsConvex with ManifoldBetweenTwoFaces; MuJoCo's mjc_Convex with its multi-contact pass).
//
// 1. GJK on the cores (gjk.c). Apart by more than the radii plus the margin: no contact. Apart by more than
//    the touch tolerance: the normal is the direction between the closest core points, the separation
//    their distance minus the radii, and the surface points are the core points pushed out by the radii.
//    Otherwise the rounded solids overlap (or all but touch) and EPA on them gives the normal, the depth
//    and the deepest points.
// 2. The supporting faces of A along n and of B along -n (support.c) are clipped (manifold.c): a face
//    contact gives up to four points named by their features; an edge or vertex contact keeps the single
//    point of step 1.
// Everything is computed in A's frame (B placed by b_in_a = xa^-1 xb), which keeps coordinates small
// near A and costs one transform of the result.
#include "collide/gjk.h"
#include "collide/narrowphase.h"

#include <math.h>

bool convex_contact_find(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, double margin,
						 convex_contact* out)
{
	gjk_output g;
	gjk_distance(a, b, b_in_a, &g);
	double radii = a->radius + b->radius;
	double scale = fmax(a->size, b->size);
	if (g.distance > GJK_TOUCH_TOLERANCE * scale)
	{
		if (g.distance - radii >= margin)
		{
			return false;
		}
		sn_vec3 n = sn_scale(1.0 / g.distance, sn_sub(g.point_b, g.point_a));
		out->normal = n;
		out->separation = g.distance - radii;
		out->point_a = sn_add(g.point_a, sn_scale(a->radius, n));
		out->point_b = sn_sub(g.point_b, sn_scale(b->radius, n));
		return true;
	}
	epa_output e;
	if (epa_penetration(a, b, b_in_a, &g.simplex, &e))
	{
		out->normal = e.normal;
		out->separation = -e.depth;
		out->point_a = e.point_a;
		out->point_b = e.point_b;
		return out->separation < margin;
	}
	// No polytope could be formed (flat Minkowski difference: never for the solids here). Push along the
	// line of the centres, with the core points as witnesses.
	sn_vec3 d = sn_sub(sn_transform_point(b_in_a, convex_center(b)), convex_center(a));
	sn_vec3 n = sn_length_sq(d) > 0.0 ? sn_normalize(d) : sn_v3(0, 0, 1);
	out->normal = n;
	out->separation = -radii;
	out->point_a = sn_add(g.point_a, sn_scale(a->radius, n));
	out->point_b = sn_sub(g.point_b, sn_scale(b->radius, n));
	return true;
}

void convex_contact_manifold(const collide_convex* a, const collide_convex* b, sn_transform b_in_a,
							 const convex_contact* contact, double margin, collide_manifold* m)
{
	collide_face fa, fb;
	convex_face(a, contact->normal, &fa);
	convex_face(b, sn_inv_rotate(b_in_a.q, sn_neg(contact->normal)), &fb);
	for (int k = 0; k < fb.count; ++k)
	{
		fb.points[k] = sn_transform_point(b_in_a, fb.points[k]);
	}
	fb.normal = sn_rotate(b_in_a.q, fb.normal);
	double size = fmax(a->size, b->size);
	manifold_from_faces(&fa, &fb, contact->normal, contact->separation, contact->point_a, contact->point_b, margin,
						size, m);
}

void collide_convex_pair(const collide_convex* a, sn_transform xa, const collide_convex* b, sn_transform xb,
						 double margin, collide_manifold* m)
{
	m->point_count = 0;
	sn_transform rel = sn_transform_inv_mul(xa, xb);
	convex_contact contact;
	if (!convex_contact_find(a, b, rel, margin, &contact))
	{
		return;
	}
	convex_contact_manifold(a, b, rel, &contact, margin, m);
	manifold_transform(m, xa);
}

void collide_convex_shapes(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb,
						   double margin, collide_manifold* m)
{
	collide_convex ca = convex_from_shape(a);
	collide_convex cb = convex_from_shape(b);
	collide_convex_pair(&ca, xa, &cb, xb, margin, m);
}

// Spheres and capsules against each other (closed forms).
//
// A sphere is a point swept by r, a capsule a segment swept by r. Two such solids touch along the line
// between the closest points of their cores c_a, c_b: normal n = (c_b - c_a) / |c_b - c_a|, separation
// |c_b - c_a| - r_a - r_b, surface points c_a + r_a n and c_b - r_b n (Ericson 4.3 and 5.1).
//   sphere-sphere    the centres
//   sphere-capsule   the centre and its closest point on the segment (Ericson 5.1.2)
//   capsule-capsule  closest points of two segments (Ericson 5.1.9). When the segments are within 2 degrees
//                    of parallel the contact is a line: the two ends of their overlap (clipped along A's
//                    segment, as Box2D's b2CollideCapsules does in 2D) give two points, so a capsule lying
//                    on another does not rock on one point.
// When the cores meet (distance 0) the direction is undefined; the routines then take the common
// perpendicular of the two segments, or any perpendicular of one, turned from A's centre towards B's
// (and +z for two coincident spheres): a choice, not a measurement, which the solver only needs to be
// consistent.
#include "collide/narrowphase.h"

#include <math.h>

void collide_segment_closest(sn_vec3 p0, sn_vec3 p1, sn_vec3 q0, sn_vec3 q1, double* s_out, double* t_out, sn_vec3* cp,
							 sn_vec3* cq)
{
	sn_vec3 d1 = sn_sub(p1, p0), d2 = sn_sub(q1, q0), r = sn_sub(p0, q0);
	double a = sn_dot(d1, d1), e = sn_dot(d2, d2), f = sn_dot(d2, r);
	double s = 0.0, t = 0.0;
	if (a == 0.0 && e == 0.0)
	{
		s = t = 0.0;
	}
	else if (a == 0.0)
	{
		t = fmin(fmax(f / e, 0.0), 1.0);
	}
	else
	{
		double c = sn_dot(d1, r);
		if (e == 0.0)
		{
			s = fmin(fmax(-c / a, 0.0), 1.0);
		}
		else
		{
			double b = sn_dot(d1, d2);
			double denom = a * e - b * b;
			// Parallel within rounding (1e-14 relative): any s works; take 0 and let t follow.
			s = denom > 1e-14 * a * e ? fmin(fmax((b * f - c * e) / denom, 0.0), 1.0) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0)
			{
				t = 0.0;
				s = fmin(fmax(-c / a, 0.0), 1.0);
			}
			else if (t > 1.0)
			{
				t = 1.0;
				s = fmin(fmax((b - c) / a, 0.0), 1.0);
			}
		}
	}
	*s_out = s;
	*t_out = t;
	*cp = sn_add(p0, sn_scale(s, d1));
	*cq = sn_add(q0, sn_scale(t, d2));
}

// A unit vector perpendicular to v (v non-zero): the cross product with the axis v is least along.
static sn_vec3 perpendicular(sn_vec3 v)
{
	sn_vec3 axis = fabs(v.x) <= fabs(v.y) && fabs(v.x) <= fabs(v.z) ? sn_v3(1, 0, 0)
		: fabs(v.y) <= fabs(v.z)                                    ? sn_v3(0, 1, 0)
																	: sn_v3(0, 0, 1);
	return sn_normalize(sn_cross(v, axis));
}

// The normal from core point ca to core point cb; when they coincide, the fallback (see the top).
static sn_vec3 core_normal(sn_vec3 ca, sn_vec3 cb, sn_vec3 da, sn_vec3 db, sn_vec3 centre_a, sn_vec3 centre_b,
						   double* distance)
{
	sn_vec3 d = sn_sub(cb, ca);
	double len = sn_length(d);
	*distance = len;
	if (len > 0.0)
	{
		return sn_scale(1.0 / len, d);
	}
	sn_vec3 n = sn_cross(da, db);
	if (sn_length_sq(n) > 0.0)
	{
		n = sn_normalize(n);
	}
	else if (sn_length_sq(da) > 0.0)
	{
		n = perpendicular(da);
	}
	else if (sn_length_sq(db) > 0.0)
	{
		n = perpendicular(db);
	}
	else
	{
		n = sn_v3(0, 0, 1);
	}
	return sn_dot(n, sn_sub(centre_b, centre_a)) < 0.0 ? sn_neg(n) : n;
}

static void round_point(sn_vec3 ca, double ra, sn_vec3 cb, double rb, sn_vec3 n, double distance, double margin,
						collide_manifold* m)
{
	double s = distance - ra - rb;
	m->normal = n;
	if (!(s < margin))
	{
		m->point_count = 0;
		return;
	}
	sn_vec3 pa = sn_add(ca, sn_scale(ra, n));
	sn_vec3 pb = sn_sub(cb, sn_scale(rb, n));
	m->points[0].point = sn_scale(0.5, sn_add(pa, pb));
	m->points[0].separation = s;
	m->points[0].id = 0;
	m->point_count = 1;
}

void collide_sphere_sphere(const collide_sphere* a, sn_transform xa, const collide_sphere* b, sn_transform xb,
						   double margin, collide_manifold* m)
{
	double distance;
	sn_vec3 zero = sn_v3(0, 0, 0);
	sn_vec3 n = core_normal(xa.p, xb.p, zero, zero, xa.p, xb.p, &distance);
	round_point(xa.p, a->radius, xb.p, b->radius, n, distance, margin, m);
}

void collide_sphere_capsule(const collide_sphere* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
							double margin, collide_manifold* m)
{
	sn_vec3 axis = sn_scale(b->half_length, sn_rotate(xb.q, sn_v3(0, 0, 1)));
	sn_vec3 q0 = sn_sub(xb.p, axis), q1 = sn_add(xb.p, axis);
	double s, t;
	sn_vec3 cp, cq;
	collide_segment_closest(xa.p, xa.p, q0, q1, &s, &t, &cp, &cq);
	double distance;
	sn_vec3 n = core_normal(xa.p, cq, sn_v3(0, 0, 0), axis, xa.p, xb.p, &distance);
	round_point(xa.p, a->radius, cq, b->radius, n, distance, margin, m);
}

void collide_capsule_capsule(const collide_capsule* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
							 double margin, collide_manifold* m)
{
	sn_vec3 ua = sn_scale(a->half_length, sn_rotate(xa.q, sn_v3(0, 0, 1)));
	sn_vec3 ub = sn_scale(b->half_length, sn_rotate(xb.q, sn_v3(0, 0, 1)));
	sn_vec3 p0 = sn_sub(xa.p, ua), p1 = sn_add(xa.p, ua);
	sn_vec3 q0 = sn_sub(xb.p, ub), q1 = sn_add(xb.p, ub);
	double s, t;
	sn_vec3 cp, cq;
	collide_segment_closest(p0, p1, q0, q1, &s, &t, &cp, &cq);
	double distance;
	sn_vec3 n = core_normal(cp, cq, ua, ub, xa.p, xb.p, &distance);
	double sep = distance - a->radius - b->radius;
	m->point_count = 0;
	if (!(sep < margin))
	{
		return;
	}
	// The two segments on the surfaces, as faces: the clipper gives two points when they are parallel.
	collide_face fa, fb;
	fa.count = fb.count = 2;
	fa.points[0] = sn_add(p0, sn_scale(a->radius, n));
	fa.points[1] = sn_add(p1, sn_scale(a->radius, n));
	fb.points[0] = sn_sub(q0, sn_scale(b->radius, n));
	fb.points[1] = sn_sub(q1, sn_scale(b->radius, n));
	for (int k = 0; k < 2; ++k)
	{
		fa.vertex_feature[k] = fb.vertex_feature[k] = collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)k);
		fa.edge_feature[k] = fb.edge_feature[k] = collide_feature(COLLIDE_FEATURE_EDGE, 0);
	}
	fa.face_feature = fb.face_feature = collide_feature(COLLIDE_FEATURE_EDGE, 0);
	fa.normal = fb.normal = sn_v3(0, 0, 0);
	double size = 2.0 * fmax(a->radius + a->half_length, b->radius + b->half_length);
	manifold_from_faces(&fa, &fb, n, sep, sn_add(cp, sn_scale(a->radius, n)), sn_sub(cq, sn_scale(b->radius, n)),
						margin, size, m);
}

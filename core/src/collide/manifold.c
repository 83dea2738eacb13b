// Face clipping and manifold reduction.
//
// Clipping (Sutherland and Hodgman 1974; as in Box2D's b2ClipPolygons, ODE's dBoxBox and Jolt's
// ManifoldBetweenTwoFaces). Given a contact normal n, the reference face is the polygon most aligned
// with it (A's face with n, B's with -n); the incident face of the other solid is clipped against the
// reference face's side planes: for the reference polygon p_0..p_{m-1}, counter-clockwise around its
// outward normal nr, side plane k has the outward normal (p_{k+1} - p_k) x nr through p_k. What survives
// lies over the reference face; its height above the reference plane, s = nr . (x - p_0), is the
// separation, and the point midway between the surfaces is x - s/2 nr.
//
// Features travel with the clipped polygon. A surviving incident vertex is (reference face, incident
// vertex); an incident edge cut by side plane k is (reference edge k, incident edge); a reference corner
// that falls inside the incident polygon appears where an edge created along side plane j is cut by the
// adjacent plane k, and is (reference vertex between them, incident face). These names depend only on
// which features touch, not on where, so a sliding box keeps its ids.
//
// Reduction to four points (Box2D v2's and Bullet's policy, sortCachedPoints; Jolt's
// PruneContactPoints is alike): the deepest point, which carries the load; then the point farthest from
// it; then the one making the largest triangle with them; then the one adding the most area, measured as
// the largest |d1 x d2| over the three ways to pair four points into a quadrilateral (for four points in
// convex position one pairing gives the convex quadrilateral, whose area |d1 x d2|/2 is the largest of
// the three; a point inside the triangle adds nothing). All areas are measured in the tangent plane.
#include "collide/manifold.h"

#include <math.h>
#include <string.h>

static sn_vec3 tangent(sn_vec3 p, sn_vec3 n)
{
	return sn_sub(p, sn_scale(sn_dot(p, n), n));
}

int manifold_reduce(const manifold_candidate* c, int count, sn_vec3 n, double merge, collide_point* out)
{
	if (count <= 0)
	{
		return 0;
	}
	double merge2 = merge * merge;
	int keep[COLLIDE_MANIFOLD_POINTS];
	int kept = 0;
	// 1. Deepest.
	int i1 = 0;
	for (int i = 1; i < count; ++i)
	{
		if (c[i].separation < c[i1].separation)
		{
			i1 = i;
		}
	}
	keep[kept++] = i1;
	sn_vec3 t1 = tangent(c[i1].point, n);
	// 2. Farthest from it.
	int i2 = -1;
	double best = merge2;
	for (int i = 0; i < count; ++i)
	{
		double d2 = sn_length_sq(sn_sub(tangent(c[i].point, n), t1));
		if (d2 > best)
		{
			best = d2;
			i2 = i;
		}
	}
	if (i2 >= 0)
	{
		keep[kept++] = i2;
		sn_vec3 t2 = tangent(c[i2].point, n);
		sn_vec3 e12 = sn_sub(t2, t1);
		// 3. Largest triangle (area floor: a point within merge of the line adds nothing).
		int i3 = -1;
		double area_floor = merge * sqrt(best);
		double best_area = area_floor;
		for (int i = 0; i < count; ++i)
		{
			double area = fabs(sn_dot(sn_cross(e12, sn_sub(tangent(c[i].point, n), t1)), n));
			if (area > best_area)
			{
				best_area = area;
				i3 = i;
			}
		}
		if (i3 >= 0)
		{
			keep[kept++] = i3;
			sn_vec3 t3 = tangent(c[i3].point, n);
			// 4. Most added area.
			int i4 = -1;
			double best_quad = best_area + area_floor;
			for (int i = 0; i < count; ++i)
			{
				if (i == i1 || i == i2 || i == i3)
				{
					continue;
				}
				sn_vec3 t = tangent(c[i].point, n);
				double q1 = fabs(sn_dot(sn_cross(sn_sub(t3, t1), sn_sub(t, t2)), n));
				double q2 = fabs(sn_dot(sn_cross(sn_sub(t, t1), sn_sub(t3, t2)), n));
				double q3 = fabs(sn_dot(sn_cross(sn_sub(t2, t1), sn_sub(t3, t)), n));
				double q = fmax(q1, fmax(q2, q3));
				if (q > best_quad)
				{
					best_quad = q;
					i4 = i;
				}
			}
			if (i4 >= 0)
			{
				keep[kept++] = i4;
			}
		}
	}
	for (int k = 0; k < kept; ++k)
	{
		out[k].point = c[keep[k]].point;
		out[k].separation = c[keep[k]].separation;
		out[k].id = c[keep[k]].id;
	}
	return kept;
}

// A vertex of the polygon being clipped, with the features of the point and of the edge that leaves it.
typedef struct clip_vertex
{
	sn_vec3 p;
	uint16_t ref;      // reference feature of the point
	uint16_t inc;      // incident feature of the point
	int16_t edge_side; // the edge leaving it: -1 an incident edge, else the side plane it runs along
	uint16_t edge_inc; // that edge's incident feature (an incident edge, or the incident face)
} clip_vertex;

#define CLIP_MAX (2 * COLLIDE_FACE_MAX + 8)

typedef struct side_plane
{
	sn_vec3 n;
	double offset;
} side_plane;

static void side_planes(const collide_face* ref, sn_vec3 nr, side_plane* planes)
{
	for (int k = 0; k < ref->count; ++k)
	{
		sn_vec3 a = ref->points[k];
		sn_vec3 b = ref->points[(k + 1) % ref->count];
		sn_vec3 s = sn_normalize(sn_cross(sn_sub(b, a), nr));
		planes[k].n = s;
		planes[k].offset = sn_dot(s, a);
	}
}

// The reference vertex where side planes j and k meet (adjacent edges), else that of k.
static uint16_t corner_feature(const collide_face* ref, int j, int k)
{
	int m = ref->count;
	if (j == (k + 1) % m)
	{
		return ref->vertex_feature[(k + 1) % m];
	}
	return ref->vertex_feature[k];
}

// Sutherland-Hodgman of the incident polygon against every side plane of the reference face.
static int clip_polygon(const collide_face* ref, uint16_t inc_face, const side_plane* planes, clip_vertex* poly,
						int count, clip_vertex* scratch)
{
	clip_vertex* in = poly;
	clip_vertex* out = scratch;
	for (int k = 0; k < ref->count && count > 0; ++k)
	{
		const side_plane* pl = &planes[k];
		int n = 0;
		for (int i = 0; i < count; ++i)
		{
			const clip_vertex* a = &in[i];
			const clip_vertex* b = &in[(i + 1) % count];
			double da = sn_dot(pl->n, a->p) - pl->offset;
			double db = sn_dot(pl->n, b->p) - pl->offset;
			bool a_in = da <= 0.0, b_in = db <= 0.0;
			if (a_in != b_in)
			{
				double t = da / (da - db);
				clip_vertex x;
				x.p = sn_add(a->p, sn_scale(t, sn_sub(b->p, a->p)));
				if (a->edge_side < 0)
				{
					x.ref = ref->edge_feature[k];
					x.inc = a->edge_inc;
				}
				else
				{
					x.ref = corner_feature(ref, a->edge_side, k);
					x.inc = a->edge_inc;
				}
				if (a_in)
				{
					// Leaving: the polygon continues along this side plane.
					x.edge_side = (int16_t)k;
					x.edge_inc = inc_face;
				}
				else
				{
					x.edge_side = a->edge_side;
					x.edge_inc = a->edge_inc;
				}
				out[n++] = x;
			}
			if (b_in)
			{
				out[n++] = *b;
			}
		}
		count = n;
		clip_vertex* t = in;
		in = out;
		out = t;
	}
	if (in != poly)
	{
		memcpy(poly, in, (size_t)count * sizeof(clip_vertex));
	}
	return count;
}

static void single_point(sn_vec3 n, double separation, sn_vec3 pa, sn_vec3 pb, collide_manifold* m)
{
	m->normal = n;
	m->points[0].point = sn_scale(0.5, sn_add(pa, pb));
	m->points[0].separation = separation;
	m->points[0].id = 0;
	m->point_count = 1;
}

// Two segments: if parallel within 2 degrees, the two ends of their overlap along A's segment.
static bool segments(const collide_face* fa, const collide_face* fb, sn_vec3 n, double margin, double merge,
					 collide_manifold* m)
{
	sn_vec3 a0 = fa->points[0], a1 = fa->points[1];
	sn_vec3 b0 = fb->points[0], b1 = fb->points[1];
	sn_vec3 ua = sn_sub(a1, a0), ub = sn_sub(b1, b0);
	double la = sn_length(ua), lb = sn_length(ub);
	if (!(la > merge) || !(lb > merge))
	{
		return false;
	}
	ua = sn_scale(1.0 / la, ua);
	ub = sn_scale(1.0 / lb, ub);
	if (sn_length(sn_cross(ua, ub)) > 0.034899496702500969) // sin 2 deg
	{
		return false;
	}
	// B's ends along A's line.
	double tb0 = sn_dot(sn_sub(b0, a0), ua), tb1 = sn_dot(sn_sub(b1, a0), ua);
	bool b_rev = tb1 < tb0;
	double lo = fmax(0.0, fmin(tb0, tb1)), hi = fmin(la, fmax(tb0, tb1));
	if (!(hi - lo > merge))
	{
		return false;
	}
	manifold_candidate c[2];
	int count = 0;
	double ends[2] = { lo, hi };
	for (int e = 0; e < 2; ++e)
	{
		// The point of A's segment at this end of the overlap and its closest point on B's segment; for
		// the closest pair of two convex sets n separates them, so (pb - pa) . n is at least their
		// distance, with equality at the closest pair.
		sn_vec3 pa = sn_add(a0, sn_scale(ends[e], ua));
		double tb = fmin(fmax(sn_dot(sn_sub(pa, b0), ub), 0.0), lb);
		sn_vec3 pb = sn_add(b0, sn_scale(tb, ub));
		double s = sn_dot(sn_sub(pb, pa), n);
		if (s < margin)
		{
			// Which end made it: A's own end (at 0 or la) or B's.
			bool from_a = e == 0 ? lo == 0.0 : hi == la;
			uint16_t feat_a = from_a ? fa->vertex_feature[e] : fa->face_feature;
			int b_end = (e == 0) != b_rev ? 0 : 1;
			uint16_t feat_b = from_a ? fb->face_feature : fb->vertex_feature[b_end];
			c[count].point = sn_scale(0.5, sn_add(pa, pb));
			c[count].separation = s;
			c[count].id = collide_pair_id(feat_a, feat_b);
			count += 1;
		}
	}
	if (count == 0)
	{
		return false;
	}
	m->normal = n;
	m->point_count = manifold_reduce(c, count, n, merge, m->points);
	return true;
}

int manifold_clip(const collide_face* ref, const collide_face* inc, bool ref_is_a, double margin, double size,
				  collide_manifold* m)
{
	double merge = COLLIDE_MERGE_RELATIVE * size;
	sn_vec3 nr = ref->normal;
	side_plane planes[COLLIDE_FACE_MAX];
	side_planes(ref, nr, planes);
	clip_vertex poly[CLIP_MAX];
	clip_vertex scratch[CLIP_MAX];
	int count = 0;
	if (inc->count == 2)
	{
		// A segment: clip its parameter range.
		sn_vec3 p0 = inc->points[0], p1 = inc->points[1];
		double t0 = 0.0, t1 = 1.0;
		int k0 = -1, k1 = -1;
		for (int k = 0; k < ref->count; ++k)
		{
			double d0 = sn_dot(planes[k].n, p0) - planes[k].offset;
			double d1 = sn_dot(planes[k].n, p1) - planes[k].offset;
			if (d0 > 0.0 && d1 > 0.0)
			{
				t0 = 2.0;
				break;
			}
			if (d0 > 0.0)
			{
				double t = d0 / (d0 - d1);
				if (t > t0)
				{
					t0 = t;
					k0 = k;
				}
			}
			else if (d1 > 0.0)
			{
				double t = d0 / (d0 - d1);
				if (t < t1)
				{
					t1 = t;
					k1 = k;
				}
			}
		}
		if (t0 <= t1)
		{
			poly[0].p = sn_add(p0, sn_scale(t0, sn_sub(p1, p0)));
			poly[0].ref = k0 < 0 ? ref->face_feature : ref->edge_feature[k0];
			poly[0].inc = k0 < 0 ? inc->vertex_feature[0] : inc->edge_feature[0];
			poly[1].p = sn_add(p0, sn_scale(t1, sn_sub(p1, p0)));
			poly[1].ref = k1 < 0 ? ref->face_feature : ref->edge_feature[k1];
			poly[1].inc = k1 < 0 ? inc->vertex_feature[1] : inc->edge_feature[0];
			count = 2;
		}
	}
	else
	{
		for (int i = 0; i < inc->count; ++i)
		{
			poly[i].p = inc->points[i];
			poly[i].ref = ref->face_feature;
			poly[i].inc = inc->vertex_feature[i];
			poly[i].edge_side = -1;
			poly[i].edge_inc = inc->count >= 3 ? inc->edge_feature[i] : inc->face_feature;
		}
		count = inc->count;
		if (count >= 3)
		{
			count = clip_polygon(ref, inc->face_feature, planes, poly, count, scratch);
		}
		else
		{
			// A single point: kept if it lies over the reference face.
			for (int k = 0; k < ref->count && count > 0; ++k)
			{
				if (sn_dot(planes[k].n, poly[0].p) - planes[k].offset > 0.0)
				{
					count = 0;
				}
			}
		}
	}
	double offset = sn_dot(nr, ref->points[0]);
	manifold_candidate c[CLIP_MAX];
	int nc = 0;
	for (int i = 0; i < count; ++i)
	{
		double s = sn_dot(nr, poly[i].p) - offset;
		if (s < margin)
		{
			c[nc].point = sn_sub(poly[i].p, sn_scale(0.5 * s, nr));
			c[nc].separation = s;
			c[nc].id = ref_is_a ? collide_pair_id(poly[i].ref, poly[i].inc) : collide_pair_id(poly[i].inc, poly[i].ref);
			nc += 1;
		}
	}
	sn_vec3 normal = ref_is_a ? nr : sn_neg(nr);
	m->normal = normal;
	m->point_count = manifold_reduce(c, nc, normal, merge, m->points);
	return m->point_count;
}

void manifold_from_faces(const collide_face* fa, const collide_face* fb, sn_vec3 n, double separation, sn_vec3 pa,
						 sn_vec3 pb, double margin, double size, collide_manifold* m)
{
	double merge = COLLIDE_MERGE_RELATIVE * size;
	// A point face (a sphere, a capsule's end) touches at one point: the one GJK/EPA found exactly.
	if (fa->count == 1 || fb->count == 1)
	{
		single_point(n, separation, pa, pb, m);
		return;
	}
	double align_a = fa->count >= 3 ? sn_dot(fa->normal, n) : -2.0;
	double align_b = fb->count >= 3 ? -sn_dot(fb->normal, n) : -2.0;
	if (fmax(align_a, align_b) < COLLIDE_FACE_COS)
	{
		if (fa->count == 2 && fb->count == 2 && segments(fa, fb, n, margin, merge, m))
		{
			return;
		}
		single_point(n, separation, pa, pb, m);
		return;
	}
	bool ref_a = align_a >= align_b - 1e-9;
	int count = manifold_clip(ref_a ? fa : fb, ref_a ? fb : fa, ref_a, margin, size, m);
	double deepest = INFINITY;
	for (int i = 0; i < count; ++i)
	{
		deepest = fmin(deepest, m->points[i].separation);
	}
	if (count == 0 || fabs(deepest - separation) > merge)
	{
		single_point(n, separation, pa, pb, m);
	}
}

void manifold_transform(collide_manifold* m, sn_transform xf)
{
	m->normal = sn_rotate(xf.q, m->normal);
	for (int i = 0; i < m->point_count; ++i)
	{
		m->points[i].point = sn_transform_point(xf, m->points[i].point);
	}
}

void manifold_flip(collide_manifold* m)
{
	m->normal = sn_neg(m->normal);
	for (int i = 0; i < m->point_count; ++i)
	{
		uint64_t id = m->points[i].id;
		uint32_t low = (uint32_t)id;
		uint32_t swapped = (low << 16) | (low >> 16);
		m->points[i].id = (id & 0xFFFFFFFF00000000ull) | swapped;
	}
}

// Boxes against spheres, capsules and boxes (closed forms), each computed in a box's frame.
//
// sphere-box (Ericson 5.1.3): the closest point of the box to the centre c is q = clamp(c, -h, h). If c is
// outside, n = (c - q)/|c - q| and the separation is |c - q| - r. If c is inside, the nearest face (the
// axis of least h_i - |c_i|) gives n = sign(c_i) e_i and separation -(h_i - |c_i|) - r.
//
// capsule-box. Core distance first: for the segment P(t) = p0 + t d, t in [0, 1], the squared distance to
// the box f(t) = sum_i (|P_i(t)| - h_i)_+^2 is convex and piecewise quadratic, with breaks where P_i(t) =
// +-h_i. On each of the (at most seven) pieces the active terms are fixed, f = sum (p0_i + t d_i - b_i)^2,
// minimised at t = -sum d_i (p0_i - b_i) / sum d_i^2 clamped to the piece: the exact minimum is the least
// of the pieces' minima. If the segment stays outside (f > 0): the normal is from the box point to the
// segment point, and if only one axis is outside there (the segment point projects onto a face), the
// segment is clipped to that face's slab |x_j| <= h_j and both clipped ends become points, so a capsule
// lying on a box face gets two. If the segment passes through the box, separating axes decide (Gottschalk
// et al., "OBBTree", 1996): the box's three face normals and the three cross products d x e_i; the
// segment's extent along an axis L is |L . d/2|, the box's sum h_j |L_j|; the axis of least overlap is
// the penetration direction (faces preferred within 1e-5 of the size). A face axis clips the segment as
// above; an edge axis gives one point between the segment and the box edge it crosses.
//
// box-box by separating axes (Gottschalk et al. 1996; Ericson 4.4.1; Gregorius, "The Separating Axis
// Test between Convex Polyhedra", GDC 2013), in A's frame with B's axes b_j = R e_j and centre t:
//   face of A, axis e_i:      s = |t_i| - (hA_i + sum_j hB_j |R_ij|)
//   face of B, axis b_j:      s = |t . b_j| - (hB_j + sum_i hA_i |R_ij|)
//   edge pair, L = e_i x b_j:  s = (|t . L| - sum_k hA_k |L_k| - sum_k hB_k |L . b_k|) / |L|
// (skipped when the edges are parallel within 1e-6 rad: then the face axes cover it). The largest s is the
// separation along the best axis: if it exceeds the margin the boxes are apart. Faces win over edges
// unless an edge axis separates by more than 1e-5 of the size (overlapping: by more than 5% of the face's
// overlap too, at most 0.5% of the size: Bullet's depth fudge), and A's face over B's within 1e-5 of the size, so near-ties do not flip
// the manifold from step to step (Box2D's relative tolerances). A face axis
// is a face contact: the incident face is the other box's face most anti-parallel to the reference
// normal, clipped against the reference face (manifold.c), up to four points. An edge axis is an
// edge-edge contact: one point between the two supporting edges. Separated boxes (some axis has
// s > 0) go to GJK (narrow_convex.c): a separating axis only bounds their distance from below, and the
// face it belongs to may not be where they are closest (two boxes side by side diagonally), while a
// speculative contact needs the true closest features.
#include "collide/narrowphase.h"

#include <math.h>

static double component(sn_vec3 v, int i)
{
	return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

static sn_vec3 unit_axis(int i)
{
	return sn_v3(i == 0, i == 1, i == 2);
}

static sn_vec3 clamp_box(sn_vec3 p, sn_vec3 h)
{
	return sn_v3(fmin(fmax(p.x, -h.x), h.x), fmin(fmax(p.y, -h.y), h.y), fmin(fmax(p.z, -h.z), h.z));
}

void collide_sphere_box(const collide_sphere* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
						collide_manifold* m)
{
	sn_vec3 h = b->half_extents;
	sn_vec3 c = sn_inv_transform_point(xb, xa.p);
	sn_vec3 q = clamp_box(c, h);
	sn_vec3 d = sn_sub(c, q);
	double dist = sn_length(d);
	sn_vec3 nb; // box to sphere, box frame
	double s;
	if (dist > 0.0)
	{
		nb = sn_scale(1.0 / dist, d);
		s = dist - a->radius;
	}
	else
	{
		int axis = 0;
		double least = INFINITY;
		for (int i = 0; i < 3; ++i)
		{
			double depth = component(h, i) - fabs(component(c, i));
			if (depth < least)
			{
				least = depth;
				axis = i;
			}
		}
		double sign = component(c, axis) >= 0.0 ? 1.0 : -1.0;
		nb = sn_scale(sign, unit_axis(axis));
		q = sn_add(c, sn_scale(least, nb));
		s = -least - a->radius;
	}
	m->point_count = 0;
	m->normal = sn_neg(sn_rotate(xb.q, nb));
	if (!(s < margin))
	{
		return;
	}
	sn_vec3 pa = sn_sub(c, sn_scale(a->radius, nb));
	m->points[0].point = sn_transform_point(xb, sn_scale(0.5, sn_add(pa, q)));
	m->points[0].separation = s;
	m->points[0].id = 0;
	m->point_count = 1;
}

// Exact minimum of the squared distance from segment p0 + t d to the box (see the top). Returns t.
static double segment_box_closest(sn_vec3 p0, sn_vec3 d, sn_vec3 h)
{
	double breaks[8];
	int nb = 0;
	breaks[nb++] = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		double di = component(d, i);
		if (di != 0.0)
		{
			for (int side = -1; side <= 1; side += 2)
			{
				double t = (side * component(h, i) - component(p0, i)) / di;
				if (t > 0.0 && t < 1.0)
				{
					breaks[nb++] = t;
				}
			}
		}
	}
	breaks[nb++] = 1.0;
	// Insertion sort (at most eight).
	for (int i = 1; i < nb; ++i)
	{
		double x = breaks[i];
		int j = i - 1;
		while (j >= 0 && breaks[j] > x)
		{
			breaks[j + 1] = breaks[j];
			--j;
		}
		breaks[j + 1] = x;
	}
	double best_t = 0.0, best_f = INFINITY;
	for (int k = 0; k + 1 < nb; ++k)
	{
		double ta = breaks[k], tb = breaks[k + 1];
		double tm = 0.5 * (ta + tb);
		double qa = 0.0, qb = 0.0;
		for (int i = 0; i < 3; ++i)
		{
			double x = component(p0, i) + tm * component(d, i);
			double hi = component(h, i);
			if (x > hi || x < -hi)
			{
				double bound = x > hi ? hi : -hi;
				qa += component(d, i) * component(d, i);
				qb += component(d, i) * (component(p0, i) - bound);
			}
		}
		double t = qa > 0.0 ? fmin(fmax(-qb / qa, ta), tb) : ta;
		sn_vec3 p = sn_add(p0, sn_scale(t, d));
		double f = sn_length_sq(sn_sub(p, clamp_box(p, h)));
		if (f < best_f)
		{
			best_f = f;
			best_t = t;
		}
	}
	return best_t;
}

// Box edge along `axis` at the corner with the signs of the other two axes taken from s (>= 0: +).
static uint16_t edge_at(int axis, sn_vec3 s)
{
	return box_edge_feature(axis, component(s, (axis + 1) % 3) >= 0.0, component(s, (axis + 2) % 3) >= 0.0);
}

// Clips the segment p0-p1 (box frame) to the slab of face (axis, sign) and adds its ends' points.
// Returns the point count written to c.
static int capsule_on_face(sn_vec3 p0, sn_vec3 p1, sn_vec3 h, int axis, double sign, double radius, double margin,
						   manifold_candidate* c)
{
	double t0 = 0.0, t1 = 1.0;
	int k0 = -1, k1 = -1;
	sn_vec3 d = sn_sub(p1, p0);
	for (int j = 0; j < 3; ++j)
	{
		if (j == axis)
		{
			continue;
		}
		double a = component(p0, j), dj = component(d, j), hj = component(h, j);
		// Keep -hj <= a + t dj <= hj.
		for (int side = -1; side <= 1; side += 2)
		{
			double excess = side * a - hj; // > 0: outside at t = 0
			double rate = side * dj;
			if (rate == 0.0)
			{
				if (excess > 0.0)
				{
					return 0;
				}
				continue;
			}
			double t = -excess / rate;
			int plane = 2 * j + (side > 0);
			if (rate > 0.0 && t < t1)
			{
				t1 = t;
				k1 = plane;
			}
			else if (rate < 0.0 && t > t0)
			{
				t0 = t;
				k0 = plane;
			}
		}
	}
	if (t0 > t1)
	{
		return 0;
	}
	uint16_t face = box_face_feature(axis, sign > 0.0);
	int count = 0;
	double ts[2] = { t0, t1 };
	int ks[2] = { k0, k1 };
	for (int e = 0; e < 2; ++e)
	{
		sn_vec3 x = sn_add(p0, sn_scale(ts[e], d));
		double s = sign * component(x, axis) - component(h, axis) - radius;
		if (!(s < margin))
		{
			continue;
		}
		uint16_t fa, fb;
		if (ks[e] < 0)
		{
			fa = collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)e);
			fb = face;
		}
		else
		{
			// The box edge between this face and the side face the clip plane belongs to.
			int j = ks[e] / 2;
			int along = 3 - axis - j;
			sn_vec3 corner = sn_add(sn_scale(sign, unit_axis(axis)), sn_scale((ks[e] & 1) ? 1.0 : -1.0, unit_axis(j)));
			fa = collide_feature(COLLIDE_FEATURE_EDGE, 0);
			fb = edge_at(along, corner);
		}
		sn_vec3 n_face = sn_scale(sign, unit_axis(axis));
		c[count].point = sn_sub(x, sn_scale(radius + 0.5 * s, n_face));
		c[count].separation = s;
		c[count].id = collide_pair_id(fa, fb);
		count += 1;
	}
	return count;
}

void collide_capsule_box(const collide_capsule* a, sn_transform xa, const collide_box* b, sn_transform xb,
						 double margin, collide_manifold* m)
{
	sn_vec3 h = b->half_extents;
	double r = a->radius;
	double size = 2.0 * fmax(a->radius + a->half_length, fmax(h.x, fmax(h.y, h.z)));
	sn_transform rel = sn_transform_inv_mul(xb, xa); // capsule in the box frame
	sn_vec3 axis = sn_scale(a->half_length, sn_rotate(rel.q, sn_v3(0, 0, 1)));
	sn_vec3 p0 = sn_sub(rel.p, axis), p1 = sn_add(rel.p, axis);
	sn_vec3 d = sn_sub(p1, p0);
	double t = segment_box_closest(p0, d, h);
	sn_vec3 s_pt = sn_add(p0, sn_scale(t, d));
	sn_vec3 q = clamp_box(s_pt, h);
	sn_vec3 gap = sn_sub(s_pt, q);
	double dist = sn_length(gap);
	m->point_count = 0;
	manifold_candidate c[2];
	int count = 0;
	sn_vec3 n_box; // box to capsule, box frame
	if (dist > 1e-12 * size)
	{
		double sep = dist - r;
		if (!(sep < margin))
		{
			return;
		}
		n_box = sn_scale(1.0 / dist, gap);
		int outside = 0, face_axis = 0;
		for (int i = 0; i < 3; ++i)
		{
			if (fabs(component(s_pt, i)) > component(h, i))
			{
				outside += 1;
				face_axis = i;
			}
		}
		if (outside == 1)
		{
			double sign = component(s_pt, face_axis) > 0.0 ? 1.0 : -1.0;
			n_box = sn_scale(sign, unit_axis(face_axis));
			count = capsule_on_face(p0, p1, h, face_axis, sign, r, margin, c);
		}
		if (count == 0)
		{
			c[0].point = sn_scale(0.5, sn_add(sn_sub(s_pt, sn_scale(r, n_box)), q));
			c[0].separation = sep;
			c[0].id = 0;
			count = 1;
		}
	}
	else
	{
		// The segment meets the box: least overlap over the six axes.
		sn_vec3 mid = sn_scale(0.5, sn_add(p0, p1));
		sn_vec3 half = sn_scale(0.5, d);
		int face_axis = 0;
		double face_s = -INFINITY;
		for (int i = 0; i < 3; ++i)
		{
			double s = fabs(component(mid, i)) - fabs(component(half, i)) - component(h, i);
			if (s > face_s)
			{
				face_s = s;
				face_axis = i;
			}
		}
		int edge_axis = -1;
		double edge_s = -INFINITY;
		sn_vec3 edge_l = sn_v3(0, 0, 0);
		double dl = sn_length(half);
		for (int i = 0; i < 3; ++i)
		{
			sn_vec3 l = sn_cross(half, unit_axis(i));
			double len = sn_length(l);
			if (!(len > 1e-6 * dl))
			{
				continue;
			}
			l = sn_scale(1.0 / len, l);
			double s = fabs(sn_dot(l, mid)) - (fabs(l.x) * h.x + fabs(l.y) * h.y + fabs(l.z) * h.z);
			if (s > edge_s)
			{
				edge_s = s;
				edge_axis = i;
				edge_l = l;
			}
		}
		if (edge_axis >= 0 && edge_s > face_s + 1e-5 * size)
		{
			// Edge: the box edge along edge_axis on the capsule's side.
			sn_vec3 l = sn_dot(edge_l, mid) >= 0.0 ? edge_l : sn_neg(edge_l);
			sn_vec3 corner = sn_v3(l.x >= 0.0 ? h.x : -h.x, l.y >= 0.0 ? h.y : -h.y, l.z >= 0.0 ? h.z : -h.z);
			sn_vec3 e = sn_scale(component(h, edge_axis), unit_axis(edge_axis));
			sn_vec3 base = sn_sub(corner, sn_scale(component(corner, edge_axis), unit_axis(edge_axis)));
			double s1, t1;
			sn_vec3 cp, cq;
			collide_segment_closest(p0, p1, sn_sub(base, e), sn_add(base, e), &s1, &t1, &cp, &cq);
			double sep = edge_s - r;
			n_box = l;
			c[0].point = sn_scale(0.5, sn_add(sn_sub(cp, sn_scale(r, l)), cq));
			c[0].separation = sep;
			c[0].id = collide_pair_id(collide_feature(COLLIDE_FEATURE_EDGE, 0), edge_at(edge_axis, corner));
			count = sep < margin ? 1 : 0;
		}
		else
		{
			double sign = component(mid, face_axis) >= 0.0 ? 1.0 : -1.0;
			n_box = sn_scale(sign, unit_axis(face_axis));
			count = capsule_on_face(p0, p1, h, face_axis, sign, r, margin, c);
		}
	}
	if (count == 0)
	{
		return;
	}
	sn_vec3 n = sn_neg(n_box); // capsule to box
	m->normal = n;
	m->point_count = manifold_reduce(c, count, n, COLLIDE_MERGE_RELATIVE * size, m->points);
	manifold_transform(m, xb);
}

// The face contact of two boxes: the reference box (A unless B's face separates by clearly more) and the
// other box's face most anti-parallel to its normal, clipped. Returns the point count (world frame).
static int box_face_contact(sn_vec3 ha, sn_transform xa, sn_vec3 hb, sn_transform xb, sn_transform rel, double sa,
							double sb, int fa, int fb, double margin, double size, collide_manifold* m)
{
	bool ref_a = !(sb > sa + 1e-5 * size);
	sn_transform inc_in_ref = ref_a ? rel : sn_transform_inv_mul(xb, xa);
	sn_vec3 h_ref = ref_a ? ha : hb, h_inc = ref_a ? hb : ha;
	int axis = ref_a ? fa : fb;
	int positive = component(inc_in_ref.p, axis) >= 0.0;
	collide_face ref, inc;
	box_face(h_ref, axis, positive, &ref);
	sn_vec3 n_in_inc = sn_inv_rotate(inc_in_ref.q, ref.normal);
	double ax = fabs(n_in_inc.x), ay = fabs(n_in_inc.y), az = fabs(n_in_inc.z);
	int inc_axis = ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2);
	box_face(h_inc, inc_axis, component(n_in_inc, inc_axis) < 0.0, &inc);
	for (int k = 0; k < inc.count; ++k)
	{
		inc.points[k] = sn_transform_point(inc_in_ref, inc.points[k]);
	}
	inc.normal = sn_rotate(inc_in_ref.q, inc.normal);
	int count = manifold_clip(&ref, &inc, ref_a, margin, size, m);
	if (count > 0)
	{
		manifold_transform(m, ref_a ? xa : xb);
	}
	return count;
}

void collide_box_box(const collide_box* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
					 collide_manifold* m)
{
	m->point_count = 0;
	sn_vec3 ha = a->half_extents, hb = b->half_extents;
	double size = 2.0 * fmax(fmax(ha.x, fmax(ha.y, ha.z)), fmax(hb.x, fmax(hb.y, hb.z)));
	sn_transform rel = sn_transform_inv_mul(xa, xb); // B in A's frame
	sn_mat33 rm = sn_mat33_from_quat(rel.q);
	sn_vec3 bx[3] = { rm.cx, rm.cy, rm.cz };
	sn_vec3 t = rel.p;
	double abs_r[3][3]; // |R_ij| = |e_i . b_j|
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			abs_r[i][j] = fabs(component(bx[j], i));
		}
	}
	// Faces of A.
	int fa = 0;
	double sa = -INFINITY;
	for (int i = 0; i < 3; ++i)
	{
		double s =
			fabs(component(t, i)) - (component(ha, i) + hb.x * abs_r[i][0] + hb.y * abs_r[i][1] + hb.z * abs_r[i][2]);
		if (s > sa)
		{
			sa = s;
			fa = i;
		}
	}
	if (sa > margin)
	{
		return;
	}
	// Faces of B.
	int fb = 0;
	double sb = -INFINITY;
	for (int j = 0; j < 3; ++j)
	{
		double s =
			fabs(sn_dot(t, bx[j])) - (component(hb, j) + ha.x * abs_r[0][j] + ha.y * abs_r[1][j] + ha.z * abs_r[2][j]);
		if (s > sb)
		{
			sb = s;
			fb = j;
		}
	}
	if (sb > margin)
	{
		return;
	}
	// Edge pairs.
	int ei = -1, ej = -1;
	double se = -INFINITY;
	sn_vec3 le = sn_v3(0, 0, 0);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			sn_vec3 l = sn_cross(unit_axis(i), bx[j]);
			double len = sn_length(l);
			if (!(len > 1e-6))
			{
				continue;
			}
			l = sn_scale(1.0 / len, l);
			double ra = ha.x * fabs(l.x) + ha.y * fabs(l.y) + ha.z * fabs(l.z);
			double rb = hb.x * fabs(sn_dot(l, bx[0])) + hb.y * fabs(sn_dot(l, bx[1])) + hb.z * fabs(sn_dot(l, bx[2]));
			double s = fabs(sn_dot(t, l)) - ra - rb;
			if (s > margin)
			{
				return;
			}
			if (s > se)
			{
				se = s;
				ei = i;
				ej = j;
				le = l;
			}
		}
	}
	double face_best = fmax(sa, sb);
	if (fmax(face_best, se) > 0.0)
	{
		// Apart: the separating axis bounds the distance from below but its face may not be where the
		// boxes are closest (two boxes side by side diagonally). When a face axis separates best and the
		// other box's nearest point lies over that face, the clipped manifold holds a point at exactly
		// that separation, which is then the distance (a lower bound attained); boxes resting face on face
		// and rounded just apart, and speculative face contacts, take this path. Otherwise GJK finds the
		// closest features exactly; face clipping follows when they are a face (narrow_convex.c).
		if (!(se > face_best + 1e-5 * size) &&
			box_face_contact(ha, xa, hb, xb, rel, sa, sb, fa, fb, margin, size, m) > 0)
		{
			double nearest = INFINITY;
			for (int k = 0; k < m->point_count; ++k)
			{
				nearest = fmin(nearest, m->points[k].separation);
			}
			// 1e-9 of the size: the rounding of the clipped points' separations.
			if (fabs(nearest - face_best) <= 1e-9 * size)
			{
				return;
			}
		}
		m->point_count = 0;
		collide_convex ca, cb;
		collide_shape sa_shape = collide_make_box(ha), sb_shape = collide_make_box(hb);
		ca = convex_from_shape(&sa_shape);
		cb = convex_from_shape(&sb_shape);
		collide_convex_pair(&ca, xa, &cb, xb, margin, m);
		return;
	}
	// Overlapping: an edge pair wins only when it overlaps less than the best face by 5% of that face's
	// overlap (Bullet's box-box fudge factor of 1.05 on the depth), at most 0.5% of the size, and 1e-5 of
	// the size: a face resting on a face with its edge overhanging the other's, tilted by a hundredth of a
	// degree, stays a face contact of four points instead of one edge point, about which a grasped box
	// would turn; deep overlaps still take their least-overlap axis to within 0.5% of the size.
	if (ei >= 0 && se > face_best + fmin(-0.05 * face_best, 5e-3 * size) + 1e-5 * size)
	{
		// Edge-edge: the supporting edges along L (A to B).
		sn_vec3 l = sn_dot(le, t) >= 0.0 ? le : sn_neg(le);
		sn_vec3 ca = sn_v3(l.x >= 0.0 ? ha.x : -ha.x, l.y >= 0.0 ? ha.y : -ha.y, l.z >= 0.0 ? ha.z : -ha.z);
		sn_vec3 ea = sn_scale(component(ha, ei), unit_axis(ei));
		sn_vec3 base_a = sn_sub(ca, sn_scale(component(ca, ei), unit_axis(ei)));
		sn_vec3 lb = sn_v3(-sn_dot(l, bx[0]), -sn_dot(l, bx[1]), -sn_dot(l, bx[2])); // -L in B's axes
		sn_vec3 cb_local = sn_v3(lb.x >= 0.0 ? hb.x : -hb.x, lb.y >= 0.0 ? hb.y : -hb.y, lb.z >= 0.0 ? hb.z : -hb.z);
		sn_vec3 cb = t;
		for (int k = 0; k < 3; ++k)
		{
			if (k != ej)
			{
				cb = sn_add(cb, sn_scale(component(cb_local, k), bx[k]));
			}
		}
		sn_vec3 eb = sn_scale(component(hb, ej), bx[ej]);
		double s1, t1;
		sn_vec3 pa, pb;
		collide_segment_closest(sn_sub(base_a, ea), sn_add(base_a, ea), sn_sub(cb, eb), sn_add(cb, eb), &s1, &t1, &pa,
								&pb);
		double sep = sn_dot(sn_sub(pb, pa), l);
		if (!(sep < margin))
		{
			return;
		}
		m->normal = l;
		m->points[0].point = sn_scale(0.5, sn_add(pa, pb));
		m->points[0].separation = sep;
		m->points[0].id = collide_pair_id(edge_at(ei, ca), edge_at(ej, cb_local));
		m->point_count = 1;
		manifold_transform(m, xa);
		return;
	}
	box_face_contact(ha, xa, hb, xb, rel, sa, sb, fa, fb, margin, size, m);
}

// Support functions and supporting faces (van den Bergen, "Collision Detection in Interactive 3D
// Environments", 2004, ch. 4; Jolt's GetSupportFunction / GetSupportingFace).
//
// A convex C's support along d is s(d) = argmax over x in C of d . x. For the cores here:
//   point      0
//   segment    (0, 0, sign(d_z) h)
//   box        (sign(d_x) hx, sign(d_y) hy, sign(d_z) hz)
//   cylinder   r (d_x, d_y) / |(d_x, d_y)| + (0, 0, sign(d_z) h); on the axis (d_x = d_y = 0) the cap
//              centre, which is a support point as good as any of the cap
//   hull       the vertex with the largest d . v (a linear scan of at most 256 vertices)
//   triangle   the corner with the largest d . v
// A rounded solid (sphere, capsule) adds radius * d / |d|; GJK works on the cores and adds the radii
// to the distance, EPA works on the rounded solids (gjk.c).
//
// Sign choices use d >= 0 -> +, so equal inputs give equal outputs and the witness points of GJK are
// reproducible bit for bit.
//
// The supporting face along d is the feature a resting contact along d lies on: the box face whose
// normal is most aligned with d; the hull face most aligned with d among those around the support
// vertex (so it holds the deepest point, hull.c); the cylinder's cap (as a polygon) if d is within 45
// degrees of its axis, else the line of its side; the capsule's segment if d is within 45 degrees of
// perpendicular to its axis, else its nearer end; a sphere's single point; the triangle, turned to face
// d. The clipper (manifold.c) decides from the two faces and the normal whether a face contact is real.
#include "collide/support.h"

#include "collide/hull.h"

#include <math.h>
#include <string.h>

collide_convex convex_from_shape(const collide_shape* shape)
{
	collide_convex c;
	memset(&c, 0, sizeof(c));
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
			c.kind = CONVEX_POINT;
			c.radius = shape->sphere.radius;
			break;
		case COLLIDE_CAPSULE:
			c.kind = CONVEX_SEGMENT;
			c.radius = shape->capsule.radius;
			c.half = sn_v3(0, 0, shape->capsule.half_length);
			break;
		case COLLIDE_BOX:
			c.kind = CONVEX_BOX;
			c.half = shape->box.half_extents;
			break;
		case COLLIDE_CYLINDER:
			c.kind = CONVEX_CYLINDER;
			c.half = sn_v3(shape->cylinder.radius, shape->cylinder.radius, shape->cylinder.half_height);
			break;
		case COLLIDE_HULL:
			c.kind = CONVEX_HULL;
			c.hull = shape->hull;
			break;
		case COLLIDE_MESH:
		case COLLIDE_PLANE:
		case COLLIDE_SHAPE_TYPE_COUNT:
			c.kind = CONVEX_POINT; // not convex solids; callers never ask
			break;
	}
	c.size = collide_shape_size(shape);
	return c;
}

collide_convex convex_triangle(sn_vec3 a, sn_vec3 b, sn_vec3 c)
{
	collide_convex t;
	memset(&t, 0, sizeof(t));
	t.kind = CONVEX_TRIANGLE;
	t.tri[0] = a;
	t.tri[1] = b;
	t.tri[2] = c;
	t.tri_normal = sn_normalize(sn_cross(sn_sub(b, a), sn_sub(c, a)));
	double l = fmax(sn_length(sn_sub(b, a)), fmax(sn_length(sn_sub(c, b)), sn_length(sn_sub(a, c))));
	t.size = l;
	return t;
}

static double sign_of(double x)
{
	return x >= 0.0 ? 1.0 : -1.0;
}

sn_vec3 convex_support(const collide_convex* c, sn_vec3 d)
{
	switch (c->kind)
	{
		case CONVEX_POINT:
			return sn_v3(0, 0, 0);
		case CONVEX_SEGMENT:
			return sn_v3(0, 0, sign_of(d.z) * c->half.z);
		case CONVEX_BOX:
			return sn_v3(sign_of(d.x) * c->half.x, sign_of(d.y) * c->half.y, sign_of(d.z) * c->half.z);
		case CONVEX_CYLINDER:
		{
			double s = sqrt(d.x * d.x + d.y * d.y);
			double z = sign_of(d.z) * c->half.z;
			if (s > 0.0)
			{
				double k = c->half.x / s;
				return sn_v3(k * d.x, k * d.y, z);
			}
			return sn_v3(0, 0, z);
		}
		case CONVEX_HULL:
			return c->hull->vertices[hull_support_vertex(c->hull, d)];
		case CONVEX_TRIANGLE:
		{
			double d0 = sn_dot(c->tri[0], d), d1 = sn_dot(c->tri[1], d), d2 = sn_dot(c->tri[2], d);
			if (d0 >= d1 && d0 >= d2)
			{
				return c->tri[0];
			}
			return d1 >= d2 ? c->tri[1] : c->tri[2];
		}
	}
	return sn_v3(0, 0, 0);
}

sn_vec3 convex_center(const collide_convex* c)
{
	switch (c->kind)
	{
		case CONVEX_HULL:
			return c->hull->centroid;
		case CONVEX_TRIANGLE:
			return sn_scale(1.0 / 3.0, sn_add(c->tri[0], sn_add(c->tri[1], c->tri[2])));
		case CONVEX_POINT:
		case CONVEX_SEGMENT:
		case CONVEX_BOX:
		case CONVEX_CYLINDER:
			break;
	}
	return sn_v3(0, 0, 0);
}

static double axis_of(sn_vec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

void box_face(sn_vec3 h, int axis, int positive, collide_face* out)
{
	int u = (axis + 1) % 3, v = (axis + 2) % 3;
	// Corner signs in (u, v), counter-clockwise around +e_axis (u x v = e_axis); reversed for -e_axis.
	static const int ccw[4][2] = { { 1, 1 }, { 0, 1 }, { 0, 0 }, { 1, 0 } };
	static const int cw[4][2] = { { 1, 1 }, { 1, 0 }, { 0, 0 }, { 0, 1 } };
	const int(*order)[2] = positive ? ccw : cw;
	int signs[4][3];
	double hv[3] = { h.x, h.y, h.z };
	for (int k = 0; k < 4; ++k)
	{
		signs[k][axis] = positive;
		signs[k][u] = order[k][0];
		signs[k][v] = order[k][1];
		double p[3];
		for (int a = 0; a < 3; ++a)
		{
			p[a] = signs[k][a] ? hv[a] : -hv[a];
		}
		out->points[k] = sn_v3(p[0], p[1], p[2]);
		out->vertex_feature[k] = box_vertex_feature(signs[k][0], signs[k][1], signs[k][2]);
	}
	for (int k = 0; k < 4; ++k)
	{
		const int* s0 = signs[k];
		const int* s1 = signs[(k + 1) % 4];
		int along = s0[u] != s1[u] ? u : v; // the axis the edge runs along
		out->edge_feature[k] = box_edge_feature(along, s0[(along + 1) % 3], s0[(along + 2) % 3]);
	}
	double n[3] = { 0, 0, 0 };
	n[axis] = positive ? 1.0 : -1.0;
	out->normal = sn_v3(n[0], n[1], n[2]);
	out->face_feature = box_face_feature(axis, positive);
	out->count = 4;
}

static void single_point(collide_face* out, sn_vec3 p, uint16_t feature)
{
	out->count = 1;
	out->points[0] = p;
	out->vertex_feature[0] = feature;
	out->edge_feature[0] = 0;
	out->face_feature = feature;
	out->normal = sn_v3(0, 0, 0);
}

void convex_face(const collide_convex* c, sn_vec3 d, collide_face* out)
{
	sn_vec3 dn = sn_normalize(d);
	sn_vec3 round = sn_scale(c->radius, dn);
	switch (c->kind)
	{
		case CONVEX_POINT:
			single_point(out, round, collide_feature(COLLIDE_FEATURE_FACE, 0));
			return;
		case CONVEX_SEGMENT:
		{
			// Within 45 degrees of perpendicular to the axis: the whole segment.
			if (fabs(dn.z) <= 0.70710678118654752)
			{
				out->count = 2;
				out->points[0] = sn_add(sn_v3(0, 0, -c->half.z), round);
				out->points[1] = sn_add(sn_v3(0, 0, c->half.z), round);
				out->vertex_feature[0] = collide_feature(COLLIDE_FEATURE_VERTEX, 0);
				out->vertex_feature[1] = collide_feature(COLLIDE_FEATURE_VERTEX, 1);
				out->edge_feature[0] = out->edge_feature[1] = collide_feature(COLLIDE_FEATURE_EDGE, 0);
				out->face_feature = collide_feature(COLLIDE_FEATURE_EDGE, 0);
				out->normal = sn_v3(0, 0, 0);
				return;
			}
			int top = dn.z >= 0.0;
			single_point(out, sn_add(sn_v3(0, 0, top ? c->half.z : -c->half.z), round),
						 collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)top));
			return;
		}
		case CONVEX_BOX:
		{
			double ax = fabs(dn.x), ay = fabs(dn.y), az = fabs(dn.z);
			int axis = ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2);
			box_face(c->half, axis, axis_of(dn, axis) >= 0.0, out);
			return;
		}
		case CONVEX_CYLINDER:
		{
			double r = c->half.x, h = c->half.z;
			if (fabs(dn.z) >= 0.70710678118654752)
			{
				// The cap as an octagon, counter-clockwise around its outward normal.
				int top = dn.z >= 0.0;
				int n = COLLIDE_CYLINDER_CAP_POINTS;
				for (int k = 0; k < n; ++k)
				{
					int slot = top ? k : (n - k) % n;
					double a = 2.0 * SN_PI * slot / n;
					out->points[k] = sn_v3(r * cos(a), r * sin(a), top ? h : -h);
					out->vertex_feature[k] = collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)(top * n + slot));
				}
				for (int k = 0; k < n; ++k)
				{
					int slot = top ? k : (n - k - 1 + n) % n; // the rim edge between this point and the next
					out->edge_feature[k] = collide_feature(COLLIDE_FEATURE_EDGE, (uint32_t)(top * n + slot));
				}
				out->normal = sn_v3(0, 0, top ? 1.0 : -1.0);
				out->face_feature = collide_feature(COLLIDE_FEATURE_FACE, (uint32_t)top);
				out->count = n;
				return;
			}
			double s = sqrt(dn.x * dn.x + dn.y * dn.y);
			sn_vec3 radial = s > 0.0 ? sn_v3(r * dn.x / s, r * dn.y / s, 0.0) : sn_v3(r, 0, 0);
			out->count = 2;
			out->points[0] = sn_add(radial, sn_v3(0, 0, -h));
			out->points[1] = sn_add(radial, sn_v3(0, 0, h));
			out->vertex_feature[0] = collide_feature(COLLIDE_FEATURE_VERTEX, 2 * COLLIDE_CYLINDER_CAP_POINTS);
			out->vertex_feature[1] = collide_feature(COLLIDE_FEATURE_VERTEX, 2 * COLLIDE_CYLINDER_CAP_POINTS + 1);
			out->edge_feature[0] = out->edge_feature[1] =
				collide_feature(COLLIDE_FEATURE_EDGE, 2 * COLLIDE_CYLINDER_CAP_POINTS);
			out->face_feature = collide_feature(COLLIDE_FEATURE_FACE, 2);
			out->normal = sn_v3(0, 0, 0);
			return;
		}
		case CONVEX_HULL:
		{
			const collide_hull* hull = c->hull;
			int f = hull_support_face(hull, dn);
			const collide_hull_face* face = &hull->faces[f];
			int step = (face->count + COLLIDE_FACE_MAX - 1) / COLLIDE_FACE_MAX;
			int n = 0;
			for (int k = 0; k < face->count; k += step)
			{
				const collide_hull_edge* e = &hull->half_edges[face->first + k];
				out->points[n] = hull->vertices[e->origin];
				out->vertex_feature[n] = collide_feature(COLLIDE_FEATURE_VERTEX, e->origin);
				out->edge_feature[n] = collide_feature(COLLIDE_FEATURE_EDGE, e->edge);
				n += 1;
			}
			out->normal = hull->planes[f].normal;
			out->face_feature = collide_feature(COLLIDE_FEATURE_FACE, (uint32_t)f);
			out->count = n;
			return;
		}
		case CONVEX_TRIANGLE:
		{
			// Front (0, 1, 2) or back (0, 2, 1); edge k is the triangle's edge from corner k to k + 1.
			bool front = sn_dot(c->tri_normal, dn) >= 0.0;
			static const int front_order[3] = { 0, 1, 2 };
			static const int back_order[3] = { 0, 2, 1 };
			static const int front_edges[3] = { 0, 1, 2 };
			static const int back_edges[3] = { 2, 1, 0 };
			const int* order = front ? front_order : back_order;
			const int* edges = front ? front_edges : back_edges;
			for (int k = 0; k < 3; ++k)
			{
				out->points[k] = c->tri[order[k]];
				out->vertex_feature[k] = collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)order[k]);
				out->edge_feature[k] = collide_feature(COLLIDE_FEATURE_EDGE, (uint32_t)edges[k]);
			}
			out->normal = front ? c->tri_normal : sn_neg(c->tri_normal);
			out->face_feature = collide_feature(COLLIDE_FEATURE_FACE, front ? 0u : 1u);
			out->count = 3;
			return;
		}
	}
	single_point(out, sn_v3(0, 0, 0), 0);
}

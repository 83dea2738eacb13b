// Closest points and overlap of placed shapes.
//
// Convex pairs: GJK on the cores (gjk.c) gives the distance between the cores, minus the radii for the
// solids; within the touch tolerance, EPA gives the penetration depth as a negative distance (and
// decides overlap there too). A plane and
// a convex solid: the solid's deepest point along -n (its support) and its height above the plane, which
// is the exact signed distance. A mesh overlaps a solid if any triangle its box meets overlaps it (GJK
// per triangle, stopping at the first).
#include "collide/bounds.h"
#include "collide/gjk.h"
#include "collide/mesh.h"
#include "collide/query.h"

#include <math.h>

// The plane (world) and a convex solid: signed distance and points.
static void plane_distance(const collide_plane* p, sn_transform xp, const collide_shape* s, sn_transform xs,
						   collide_distance_output* out)
{
	sn_vec3 n = sn_rotate(xp.q, p->normal);
	double offset = p->offset + sn_dot(n, xp.p);
	collide_convex c = convex_from_shape(s);
	sn_vec3 core = sn_transform_point(xs, convex_support(&c, sn_inv_rotate(xs.q, sn_neg(n))));
	sn_vec3 deepest = sn_sub(core, sn_scale(c.radius, n));
	double height = sn_dot(n, deepest) - offset;
	out->distance = height;
	out->point_b = deepest;
	out->point_a = sn_sub(deepest, sn_scale(height, n));
	out->normal = n;
	out->iterations = 0;
}

bool collide_distance(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb,
					  collide_distance_output* out)
{
	if (a->type == COLLIDE_PLANE && collide_type_is_convex(b->type))
	{
		plane_distance(&a->plane, xa, b, xb, out);
		return true;
	}
	if (b->type == COLLIDE_PLANE && collide_type_is_convex(a->type))
	{
		plane_distance(&b->plane, xb, a, xa, out);
		sn_vec3 t = out->point_a;
		out->point_a = out->point_b;
		out->point_b = t;
		out->normal = sn_neg(out->normal);
		return true;
	}
	if (!collide_type_is_convex(a->type) || !collide_type_is_convex(b->type))
	{
		return false;
	}
	collide_convex ca = convex_from_shape(a), cb = convex_from_shape(b);
	sn_transform rel = sn_transform_inv_mul(xa, xb);
	gjk_output g;
	gjk_distance(&ca, &cb, rel, &g);
	double scale = fmax(ca.size, cb.size);
	sn_vec3 n, pa, pb;
	double distance;
	int iterations = g.iterations;
	epa_output e;
	if (g.distance > GJK_TOUCH_TOLERANCE * scale)
	{
		n = sn_scale(1.0 / g.distance, sn_sub(g.point_b, g.point_a));
		distance = g.distance - ca.radius - cb.radius;
		pa = sn_add(g.point_a, sn_scale(ca.radius, n));
		pb = sn_sub(g.point_b, sn_scale(cb.radius, n));
	}
	else if (epa_penetration(&ca, &cb, rel, &g.simplex, &e))
	{
		n = e.normal;
		distance = -e.depth;
		pa = e.point_a;
		pb = e.point_b;
		iterations += e.iterations;
	}
	else
	{
		n = sn_v3(0, 0, 1);
		distance = -(ca.radius + cb.radius);
		pa = g.point_a;
		pb = g.point_b;
	}
	out->distance = distance;
	out->normal = sn_rotate(xa.q, n);
	out->point_a = sn_transform_point(xa, pa);
	out->point_b = sn_transform_point(xa, pb);
	out->iterations = iterations;
	return true;
}

// Whether the rounded solids overlap: GJK's distance between the cores against the radii; when GJK finds
// the cores touching (within its tolerance, where its own bounds are no longer reliable to the last
// digits), EPA's signed depth decides.
static bool convex_overlap(const collide_convex* a, const collide_convex* b, sn_transform b_in_a)
{
	gjk_output g;
	gjk_distance(a, b, b_in_a, &g);
	if (g.distance > 0.0)
	{
		return g.distance <= a->radius + b->radius;
	}
	epa_output e;
	if (epa_penetration(a, b, b_in_a, &g.simplex, &e))
	{
		return e.depth >= 0.0;
	}
	return true;
}

typedef struct mesh_overlap
{
	const collide_mesh* mesh;
	collide_convex convex;
	sn_transform convex_in_mesh;
	bool hit;
} mesh_overlap;

static bool mesh_overlap_visit(void* context, int triangle)
{
	mesh_overlap* q = (mesh_overlap*)context;
	sn_vec3 p[3];
	mesh_triangle(q->mesh, triangle, p);
	collide_convex tri = convex_triangle(p[0], p[1], p[2]);
	if (convex_overlap(&tri, &q->convex, q->convex_in_mesh))
	{
		q->hit = true;
		return false;
	}
	return true;
}

// a static (plane or mesh), b convex.
static bool static_overlap(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb)
{
	if (a->type == COLLIDE_PLANE)
	{
		collide_distance_output d;
		plane_distance(&a->plane, xa, b, xb, &d);
		return d.distance <= 0.0;
	}
	mesh_overlap q;
	q.mesh = a->mesh;
	q.convex = convex_from_shape(b);
	q.convex_in_mesh = sn_transform_inv_mul(xa, xb);
	q.hit = false;
	bvh_query(a->mesh, collide_shape_aabb(b, q.convex_in_mesh, 0.0), mesh_overlap_visit, &q);
	return q.hit;
}

bool collide_overlap(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb)
{
	bool convex_a = collide_type_is_convex(a->type), convex_b = collide_type_is_convex(b->type);
	if (convex_a && convex_b)
	{
		collide_convex ca = convex_from_shape(a), cb = convex_from_shape(b);
		return convex_overlap(&ca, &cb, sn_transform_inv_mul(xa, xb));
	}
	if (convex_b && !convex_a)
	{
		return static_overlap(a, xa, b, xb);
	}
	if (convex_a && !convex_b)
	{
		return static_overlap(b, xb, a, xa);
	}
	return false;
}

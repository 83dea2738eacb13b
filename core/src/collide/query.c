// Closest points and overlap of placed shapes.
//
// Convex pairs: GJK on the cores (gjk.c) gives the distance between the cores, minus the radii for the
// solids; within the touch tolerance, EPA gives the penetration depth as a negative distance (and
// decides overlap there too). A plane and
// a convex solid: the solid's deepest point along -n (its support) and its height above the plane, which
// is the exact signed distance. A mesh overlaps a solid if any triangle its box meets overlaps it (GJK
// per triangle, stopping at the first).
//
// A mesh and a convex solid: the least signed distance to any of its triangles (each a two-sided convex,
// support.c), by GJK and, for triangles the solid overlaps, EPA (a mesh is a surface with no inside, so
// an overlap's depth is the one against the triangle it overlaps most). The BVH (mesh.c) is searched in
// growing boxes: a triangle at distance t from the solid has a point within t of it on every axis, so it
// meets the solid's box grown by t; once a search grown by r has found a triangle at distance d <= r,
// none that it did not visit can be nearer. The first box is grown by the gap between the solid's box and
// the mesh's plus the solid's size (a neighbourhood of the solid); if it finds triangles, but none within
// its growth, one more search grown by the best distance found settles it; if it finds none, a search
// that covers the whole mesh does. Ties keep the first triangle in the BVH's order (deterministic).
#include "collide/bounds.h"
#include "collide/gjk.h"
#include "collide/mesh.h"
#include "collide/query.h"

#include <math.h>
#include <string.h>

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

// Two convex solids, B placed in A's frame by rel: the result in the world through xa.
static void convex_distance(const collide_convex* ca, const collide_convex* cb, sn_transform rel, sn_transform xa,
							collide_distance_output* out)
{
	gjk_output g;
	gjk_distance(ca, cb, rel, &g);
	double scale = fmax(ca->size, cb->size);
	sn_vec3 n, pa, pb;
	double distance;
	int iterations = g.iterations;
	epa_output e;
	if (g.distance > GJK_TOUCH_TOLERANCE * scale)
	{
		n = sn_scale(1.0 / g.distance, sn_sub(g.point_b, g.point_a));
		distance = g.distance - ca->radius - cb->radius;
		pa = sn_add(g.point_a, sn_scale(ca->radius, n));
		pb = sn_sub(g.point_b, sn_scale(cb->radius, n));
	}
	else if (epa_penetration(ca, cb, rel, &g.simplex, &e))
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
		distance = -(ca->radius + cb->radius);
		pa = g.point_a;
		pb = g.point_b;
	}
	out->distance = distance;
	out->normal = sn_rotate(xa.q, n);
	out->point_a = sn_transform_point(xa, pa);
	out->point_b = sn_transform_point(xa, pb);
	out->iterations = iterations;
}

typedef struct mesh_distance
{
	const collide_mesh* mesh;
	collide_convex convex;
	sn_transform convex_in_mesh;
	bool found;
	collide_distance_output best; // mesh frame
	int iterations;
} mesh_distance;

static bool mesh_distance_visit(void* context, int triangle)
{
	mesh_distance* q = (mesh_distance*)context;
	sn_vec3 p[3];
	mesh_triangle(q->mesh, triangle, p);
	collide_convex tri = convex_triangle(p[0], p[1], p[2]);
	collide_distance_output d;
	convex_distance(&tri, &q->convex, q->convex_in_mesh, sn_transform_identity(), &d);
	q->iterations += d.iterations;
	if (!q->found || d.distance < q->best.distance)
	{
		q->found = true;
		q->best = d;
	}
	return true;
}

// The largest per-axis gap from box a to box b (0 when they overlap on every axis).
static double box_gap(collide_aabb a, collide_aabb b)
{
	double gx = fmax(fmax(b.lower.x - a.upper.x, a.lower.x - b.upper.x), 0.0);
	double gy = fmax(fmax(b.lower.y - a.upper.y, a.lower.y - b.upper.y), 0.0);
	double gz = fmax(fmax(b.lower.z - a.upper.z, a.lower.z - b.upper.z), 0.0);
	return fmax(gx, fmax(gy, gz));
}

// How far box a must grow on every axis to hold box b.
static double box_cover(collide_aabb a, collide_aabb b)
{
	double cx = fmax(a.lower.x - b.lower.x, b.upper.x - a.upper.x);
	double cy = fmax(a.lower.y - b.lower.y, b.upper.y - a.upper.y);
	double cz = fmax(a.lower.z - b.lower.z, b.upper.z - a.upper.z);
	return fmax(fmax(cx, fmax(cy, cz)), 0.0);
}

// A mesh at xm and a convex solid at xb (the top of the file): the result with the mesh as A.
static void mesh_distance_query(const collide_mesh* mesh, sn_transform xm, const collide_shape* b, sn_transform xb,
								collide_distance_output* out)
{
	mesh_distance q;
	memset(&q, 0, sizeof(q));
	q.mesh = mesh;
	q.convex = convex_from_shape(b);
	q.convex_in_mesh = sn_transform_inv_mul(xm, xb);
	collide_aabb box = collide_shape_aabb(b, q.convex_in_mesh, 0.0);
	double grow = box_gap(box, mesh->bounds) + q.convex.size;
	bvh_query(mesh, aabb_extend(box, grow), mesh_distance_visit, &q);
	if (!q.found)
	{
		bvh_query(mesh, aabb_extend(box, box_cover(box, mesh->bounds)), mesh_distance_visit, &q);
	}
	else if (q.best.distance > grow)
	{
		bvh_query(mesh, aabb_extend(box, q.best.distance), mesh_distance_visit, &q);
	}
	*out = q.best;
	out->normal = sn_rotate(xm.q, q.best.normal);
	out->point_a = sn_transform_point(xm, q.best.point_a);
	out->point_b = sn_transform_point(xm, q.best.point_b);
	out->iterations = q.iterations;
}

// Swaps the roles of A and B in a result.
static void distance_flip(collide_distance_output* out)
{
	sn_vec3 t = out->point_a;
	out->point_a = out->point_b;
	out->point_b = t;
	out->normal = sn_neg(out->normal);
}

bool collide_distance(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb,
					  collide_distance_output* out)
{
	bool convex_a = collide_type_is_convex(a->type), convex_b = collide_type_is_convex(b->type);
	if (convex_a && convex_b)
	{
		collide_convex ca = convex_from_shape(a), cb = convex_from_shape(b);
		convex_distance(&ca, &cb, sn_transform_inv_mul(xa, xb), xa, out);
		return true;
	}
	if (!convex_a && !convex_b)
	{
		return false; // two static shapes
	}
	const collide_shape* fixed = convex_a ? b : a;
	const collide_shape* solid = convex_a ? a : b;
	sn_transform xf = convex_a ? xb : xa, xs = convex_a ? xa : xb;
	if (fixed->type == COLLIDE_PLANE)
	{
		plane_distance(&fixed->plane, xf, solid, xs, out);
	}
	else
	{
		mesh_distance_query(fixed->mesh, xf, solid, xs, out);
	}
	if (convex_a)
	{
		distance_flip(out);
	}
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

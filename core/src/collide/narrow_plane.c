// A plane against the convex primitives (closed forms).
//
// The plane is n . x = d in the world (n = R n_local, d = offset + n . p for the plane's pose), solid
// below. A point x of the other solid is at height n . x - d above it, so for each candidate feature
// point the separation is its height minus the solid's radius, and the point midway between the
// surfaces is x - (r + s/2) n (the surface point x - r n and the plane point x - (s + r) n).
//   sphere    the centre (radius r)
//   capsule   the two ends of its segment (radius r): a capsule lying flat gets two points
//   box       the eight corners; those below the margin, reduced to four (a resting box gives its
//             bottom four, a box on an edge two)
//   cylinder  on each cap, four rim points a quarter turn apart starting from the one lowest towards the
//             plane (u, the downhill direction in the cap plane; the cylinder's x axis when the cap is
//             level): a standing cylinder gets a square of four, one lying on its side the two ends of its
//             lowest line, a tilted one its lowest rim points (as MuJoCo's plane-cylinder does)
//   hull      every vertex, those below the margin reduced to four: the supporting face's polygon when it
//             rests on it, its edge or vertex otherwise
// Feature ids: (plane face, feature of the other solid): the box corner, hull vertex, capsule end, or
// cylinder cap and rim slot, so a sliding box keeps its four ids.
#include "collide/narrowphase.h"

#include "collide/hull.h"

#include <math.h>

typedef struct world_plane
{
	sn_vec3 n;
	double d;
} world_plane;

static world_plane place(const collide_plane* p, sn_transform xf)
{
	world_plane w;
	w.n = sn_rotate(xf.q, p->normal);
	w.d = p->offset + sn_dot(w.n, xf.p);
	return w;
}

static const uint16_t plane_face = 0xC000u; // COLLIDE_FEATURE_FACE, index 0

// Adds candidate x (a point of the solid's core) if its separation is below the margin.
static void candidate(world_plane w, sn_vec3 x, double radius, double margin, uint16_t feature, manifold_candidate* c,
					  int* count)
{
	double s = sn_dot(w.n, x) - w.d - radius;
	if (s < margin)
	{
		c[*count].point = sn_sub(x, sn_scale(radius + 0.5 * s, w.n));
		c[*count].separation = s;
		c[*count].id = collide_pair_id(plane_face, feature);
		*count += 1;
	}
}

static void finish(world_plane w, const manifold_candidate* c, int count, double size, collide_manifold* m)
{
	m->normal = w.n;
	m->point_count = manifold_reduce(c, count, w.n, COLLIDE_MERGE_RELATIVE * size, m->points);
}

void collide_plane_sphere(const collide_plane* a, sn_transform xa, const collide_sphere* b, sn_transform xb,
						  double margin, collide_manifold* m)
{
	world_plane w = place(a, xa);
	manifold_candidate c[1];
	int count = 0;
	candidate(w, xb.p, b->radius, margin, 0, c, &count);
	finish(w, c, count, 2.0 * b->radius, m);
	if (m->point_count == 1)
	{
		m->points[0].id = 0;
	}
}

void collide_plane_capsule(const collide_plane* a, sn_transform xa, const collide_capsule* b, sn_transform xb,
						   double margin, collide_manifold* m)
{
	world_plane w = place(a, xa);
	sn_vec3 axis = sn_scale(b->half_length, sn_rotate(xb.q, sn_v3(0, 0, 1)));
	manifold_candidate c[2];
	int count = 0;
	candidate(w, sn_sub(xb.p, axis), b->radius, margin, collide_feature(COLLIDE_FEATURE_VERTEX, 0), c, &count);
	candidate(w, sn_add(xb.p, axis), b->radius, margin, collide_feature(COLLIDE_FEATURE_VERTEX, 1), c, &count);
	finish(w, c, count, 2.0 * (b->radius + b->half_length), m);
}

void collide_plane_box(const collide_plane* a, sn_transform xa, const collide_box* b, sn_transform xb, double margin,
					   collide_manifold* m)
{
	world_plane w = place(a, xa);
	sn_vec3 h = b->half_extents;
	manifold_candidate c[8];
	int count = 0;
	for (int i = 0; i < 8; ++i)
	{
		int px = i & 1, py = (i >> 1) & 1, pz = (i >> 2) & 1;
		sn_vec3 local = sn_v3(px ? h.x : -h.x, py ? h.y : -h.y, pz ? h.z : -h.z);
		candidate(w, sn_transform_point(xb, local), 0.0, margin, box_vertex_feature(px, py, pz), c, &count);
	}
	finish(w, c, count, 2.0 * fmax(h.x, fmax(h.y, h.z)), m);
}

void collide_plane_cylinder(const collide_plane* a, sn_transform xa, const collide_cylinder* b, sn_transform xb,
							double margin, collide_manifold* m)
{
	world_plane w = place(a, xa);
	sn_vec3 axis = sn_rotate(xb.q, sn_v3(0, 0, 1));
	// Downhill in the cap plane: -n without its axial part.
	sn_vec3 down = sn_sub(sn_scale(sn_dot(w.n, axis), axis), w.n);
	double len = sn_length(down);
	// A level cap (|down| below 1e-12, where its direction is rounding noise) uses the cylinder's x axis.
	sn_vec3 u = len > 1e-12 ? sn_scale(1.0 / len, down) : sn_rotate(xb.q, sn_v3(1, 0, 0));
	sn_vec3 v = sn_cross(axis, u);
	double r = b->radius, h = b->half_height;
	manifold_candidate c[8];
	int count = 0;
	static const double cs[4][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } };
	for (int cap = 0; cap < 2; ++cap)
	{
		sn_vec3 centre = sn_add(xb.p, sn_scale(cap ? h : -h, axis));
		for (int k = 0; k < 4; ++k)
		{
			sn_vec3 x = sn_add(centre, sn_add(sn_scale(r * cs[k][0], u), sn_scale(r * cs[k][1], v)));
			candidate(w, x, 0.0, margin, collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)(4 * cap + k)), c, &count);
		}
	}
	finish(w, c, count, 2.0 * fmax(r, h), m);
}

void collide_plane_hull(const collide_plane* a, sn_transform xa, const collide_hull* b, sn_transform xb, double margin,
						collide_manifold* m)
{
	world_plane w = place(a, xa);
	// Heights in the hull's frame: n_l . v - d_l with n_l = R^T n, d_l = d - n . p.
	sn_vec3 nl = sn_inv_rotate(xb.q, w.n);
	double dl = w.d - sn_dot(w.n, xb.p);
	manifold_candidate c[COLLIDE_HULL_MAX_VERTICES];
	int count = 0;
	for (int i = 0; i < b->vertex_count; ++i)
	{
		double s = sn_dot(nl, b->vertices[i]) - dl;
		if (s < margin)
		{
			sn_vec3 x = sn_transform_point(xb, b->vertices[i]);
			c[count].point = sn_sub(x, sn_scale(0.5 * s, w.n));
			c[count].separation = s;
			c[count].id = collide_pair_id(plane_face, collide_feature(COLLIDE_FEATURE_VERTEX, (uint32_t)i));
			count += 1;
		}
	}
	finish(w, c, count, b->size, m);
}

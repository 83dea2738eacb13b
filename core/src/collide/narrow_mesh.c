// A triangle mesh against a convex solid.
//
// 1. The solid's box in the mesh's frame, grown by the margin, queries the BVH (mesh.c); each triangle it
//    meets is a convex (support.c: a two-sided triangle) and collides with the solid like any convex pair
//    (narrow_convex.c): GJK/EPA for the normal, face clipping for up to four points.
// 2. Internal edges (mesh.c explains the classification). The triangle's witness point tells which of its
//    features the contact is on (barycentric weights below 1e-6 are zero). If that is an inactive edge, or
//    a vertex whose two edges in this triangle are both inactive, the contact's normal is an artefact of
//    looking at one triangle alone: it is replaced by the triangle's face normal, turned towards the
//    solid's centre, the separation becomes the solid's depth below the triangle's plane along it, and the
//    manifold is clipped again along that normal (Jolt's ActiveEdges::FixNormal does the same). A box
//    sliding over the diagonal of a two-triangle floor then sees the floor's normal on both triangles.
// 3. Merge: manifolds whose normals agree within 1 degree join one group (a flat or gently curved patch);
//    each group gathers up to 16 candidate points, reduced to four when full and at the end (manifold.c).
//    A normal that agrees with no group opens a new one; beyond COLLIDE_MAX_MANIFOLDS groups the group
//    with the shallowest deepest point gives way to a deeper one. Points keep their triangle's index in
//    the high 32 bits of their id. The BVH is walked in a fixed order, so the same query makes the same
//    manifolds.
#include "collide/mesh.h"
#include "collide/narrowphase.h"

#include "collide/bounds.h"

#include <math.h>
#include <string.h>

// Normals within 1 degree share a manifold (cos 1 deg).
#define MESH_MERGE_COS 0.99984769515639127
// Candidate points a group gathers before it reduces.
#define MESH_GROUP_POINTS 16
// Barycentric weights below this are on the triangle's boundary.
#define MESH_FEATURE_EPS 1e-6

typedef struct mesh_group
{
	sn_vec3 normal;
	double deepest;
	int count;
	manifold_candidate points[MESH_GROUP_POINTS];
} mesh_group;

typedef struct mesh_query
{
	const collide_mesh* mesh;
	const collide_convex* convex;
	sn_transform convex_in_mesh;
	sn_vec3 convex_centre; // mesh frame
	double margin;
	double size;
	mesh_group groups[COLLIDE_MAX_MANIFOLDS];
	int group_count;
} mesh_query;

// Bits of the triangle edges the witness point (mesh frame) lies on: 0 for the interior.
static unsigned witness_edges(const collide_convex* tri, sn_vec3 p)
{
	sn_vec3 e0 = sn_sub(tri->tri[1], tri->tri[0]), e1 = sn_sub(tri->tri[2], tri->tri[0]), ep = sn_sub(p, tri->tri[0]);
	double d00 = sn_dot(e0, e0), d01 = sn_dot(e0, e1), d11 = sn_dot(e1, e1);
	double d20 = sn_dot(ep, e0), d21 = sn_dot(ep, e1);
	double den = d00 * d11 - d01 * d01;
	double l1 = (d11 * d20 - d01 * d21) / den;
	double l2 = (d00 * d21 - d01 * d20) / den;
	double l0 = 1.0 - l1 - l2;
	// Edge k runs from corner k to k + 1; it is the one opposite corner k + 2.
	unsigned bits = 0;
	if (l2 < MESH_FEATURE_EPS)
	{
		bits |= 1u; // edge 0
	}
	if (l0 < MESH_FEATURE_EPS)
	{
		bits |= 2u; // edge 1
	}
	if (l1 < MESH_FEATURE_EPS)
	{
		bits |= 4u; // edge 2
	}
	return bits;
}

static void add_to_groups(mesh_query* q, const collide_manifold* m, int triangle)
{
	double deepest = INFINITY;
	for (int i = 0; i < m->point_count; ++i)
	{
		deepest = fmin(deepest, m->points[i].separation);
	}
	int g = -1;
	for (int i = 0; i < q->group_count; ++i)
	{
		if (sn_dot(q->groups[i].normal, m->normal) >= MESH_MERGE_COS)
		{
			g = i;
			break;
		}
	}
	if (g < 0)
	{
		if (q->group_count < COLLIDE_MAX_MANIFOLDS)
		{
			g = q->group_count++;
		}
		else
		{
			// Replace the group whose deepest point is shallowest, if this one is deeper.
			int weakest = 0;
			for (int i = 1; i < q->group_count; ++i)
			{
				if (q->groups[i].deepest > q->groups[weakest].deepest)
				{
					weakest = i;
				}
			}
			if (!(deepest < q->groups[weakest].deepest))
			{
				return;
			}
			g = weakest;
		}
		q->groups[g].normal = m->normal;
		q->groups[g].deepest = INFINITY;
		q->groups[g].count = 0;
	}
	mesh_group* group = &q->groups[g];
	uint64_t high = (uint64_t)(uint32_t)(triangle + 1) << 32;
	for (int i = 0; i < m->point_count; ++i)
	{
		if (group->count == MESH_GROUP_POINTS)
		{
			collide_point kept[COLLIDE_MANIFOLD_POINTS];
			int n = manifold_reduce(group->points, group->count, group->normal, COLLIDE_MERGE_RELATIVE * q->size, kept);
			for (int k = 0; k < n; ++k)
			{
				group->points[k].point = kept[k].point;
				group->points[k].separation = kept[k].separation;
				group->points[k].id = kept[k].id;
			}
			group->count = n;
		}
		manifold_candidate* c = &group->points[group->count++];
		c->point = m->points[i].point;
		c->separation = m->points[i].separation;
		c->id = high | (m->points[i].id & 0xFFFFFFFFull);
	}
	group->deepest = fmin(group->deepest, deepest);
}

static bool visit_triangle(void* context, int triangle)
{
	mesh_query* q = (mesh_query*)context;
	sn_vec3 p[3];
	mesh_triangle(q->mesh, triangle, p);
	collide_convex tri = convex_triangle(p[0], p[1], p[2]);
	convex_contact contact;
	if (!convex_contact_find(&tri, q->convex, q->convex_in_mesh, q->margin, &contact))
	{
		return true;
	}
	// Internal edges: a contact on an inactive feature takes the face normal.
	unsigned on = witness_edges(&tri, contact.point_a);
	unsigned flags = q->mesh->edge_flags[triangle];
	bool fix = on != 0 && (on & flags) == 0;
	if (fix && fabs(sn_dot(contact.normal, tri.tri_normal)) < 1.0 - 1e-12)
	{
		sn_vec3 n = sn_dot(sn_sub(q->convex_centre, tri.tri[0]), tri.tri_normal) >= 0.0 ? tri.tri_normal
																						: sn_neg(tri.tri_normal);
		// The solid's deepest point along -n, and its height above the triangle's plane.
		sn_vec3 dl = sn_inv_rotate(q->convex_in_mesh.q, sn_neg(n));
		sn_vec3 core = sn_transform_point(q->convex_in_mesh, convex_support(q->convex, dl));
		sn_vec3 deepest = sn_sub(core, sn_scale(q->convex->radius, n));
		double s = sn_dot(n, sn_sub(deepest, tri.tri[0]));
		if (!(s < q->margin))
		{
			return true;
		}
		contact.normal = n;
		contact.separation = s;
		contact.point_b = deepest;
		contact.point_a = sn_sub(deepest, sn_scale(s, n));
	}
	collide_manifold m;
	convex_contact_manifold(&tri, q->convex, q->convex_in_mesh, &contact, q->margin, &m);
	if (m.point_count > 0)
	{
		add_to_groups(q, &m, triangle);
	}
	return true;
}

int collide_mesh_convex(const collide_mesh* a, sn_transform xa, const collide_shape* b, sn_transform xb, double margin,
						collide_manifold* out)
{
	mesh_query q;
	collide_convex convex = convex_from_shape(b);
	q.mesh = a;
	q.convex = &convex;
	q.convex_in_mesh = sn_transform_inv_mul(xa, xb);
	q.convex_centre = sn_transform_point(q.convex_in_mesh, convex_center(&convex));
	q.margin = margin;
	q.size = fmax(convex.size, 0.0);
	q.group_count = 0;
	collide_aabb box = collide_shape_aabb(b, q.convex_in_mesh, margin);
	bvh_query(a, box, visit_triangle, &q);
	int count = 0;
	for (int g = 0; g < q.group_count; ++g)
	{
		mesh_group* group = &q.groups[g];
		collide_manifold* m = &out[count];
		m->normal = group->normal;
		m->point_count =
			manifold_reduce(group->points, group->count, group->normal, COLLIDE_MERGE_RELATIVE * q.size, m->points);
		if (m->point_count > 0)
		{
			manifold_transform(m, xa);
			count += 1;
		}
	}
	return count;
}

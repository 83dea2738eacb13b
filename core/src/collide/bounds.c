// Bounding boxes at a pose. For a convex body the extent along a world axis e is its support value
// h(e) = max over the body of e . x, so the box is [-h(-e), h(e)] per axis:
//   box       h = |R| half_extents (the absolute rotation matrix applied to the extents)
//   sphere    h = r;  capsule: the box of the segment's two ends, grown by r
//   cylinder  the disc of radius r normal to the axis a has extent r sqrt(1 - a_i^2) along axis i, so
//             h_i = |a_i| h + r sqrt(1 - a_i^2) about the centre
//   hull      the box of its transformed vertices (its extreme points are vertices)
// A mesh's local box is rotated like a box (conservative, not tight).
#include "collide/bounds.h"

#include <math.h>

static collide_aabb around(sn_vec3 centre, sn_vec3 extent)
{
	return aabb_make(sn_sub(centre, extent), sn_add(centre, extent));
}

// |R| e: extents of a local box with half-extents e rotated by q.
static sn_vec3 rotated_extent(sn_quat q, sn_vec3 e)
{
	sn_mat33 r = sn_mat33_from_quat(q);
	return sn_v3(fabs(r.cx.x) * e.x + fabs(r.cy.x) * e.y + fabs(r.cz.x) * e.z,
				 fabs(r.cx.y) * e.x + fabs(r.cy.y) * e.y + fabs(r.cz.y) * e.z,
				 fabs(r.cx.z) * e.x + fabs(r.cy.z) * e.y + fabs(r.cz.z) * e.z);
}

collide_aabb collide_shape_aabb(const collide_shape* shape, sn_transform xf, double margin)
{
	collide_aabb box;
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
		{
			double r = shape->sphere.radius;
			box = around(xf.p, sn_v3(r, r, r));
			break;
		}
		case COLLIDE_CAPSULE:
		{
			sn_vec3 a = sn_scale(shape->capsule.half_length, sn_rotate(xf.q, sn_v3(0, 0, 1)));
			double r = shape->capsule.radius;
			box = around(xf.p, sn_v3(fabs(a.x) + r, fabs(a.y) + r, fabs(a.z) + r));
			break;
		}
		case COLLIDE_BOX:
			box = around(xf.p, rotated_extent(xf.q, shape->box.half_extents));
			break;
		case COLLIDE_CYLINDER:
		{
			sn_vec3 a = sn_rotate(xf.q, sn_v3(0, 0, 1));
			double h = shape->cylinder.half_height;
			double r = shape->cylinder.radius;
			sn_vec3 e = sn_v3(fabs(a.x) * h + r * sqrt(fmax(0.0, 1.0 - a.x * a.x)),
							  fabs(a.y) * h + r * sqrt(fmax(0.0, 1.0 - a.y * a.y)),
							  fabs(a.z) * h + r * sqrt(fmax(0.0, 1.0 - a.z * a.z)));
			box = around(xf.p, e);
			break;
		}
		case COLLIDE_HULL:
		{
			const collide_hull* hull = shape->hull;
			box = aabb_point(sn_transform_point(xf, hull->vertices[0]));
			for (int i = 1; i < hull->vertex_count; ++i)
			{
				box = aabb_add_point(box, sn_transform_point(xf, hull->vertices[i]));
			}
			break;
		}
		case COLLIDE_MESH:
		{
			collide_aabb local = shape->mesh->bounds;
			box = around(sn_transform_point(xf, aabb_center(local)), rotated_extent(xf.q, aabb_extents(local)));
			break;
		}
		case COLLIDE_PLANE:
		{
			sn_vec3 n = sn_rotate(xf.q, shape->plane.normal);
			double offset = shape->plane.offset + sn_dot(n, xf.p);
			double big = COLLIDE_PLANE_EXTENT;
			double lo[3] = { -big, -big, -big };
			double hi[3] = { big, big, big };
			const double c[3] = { n.x, n.y, n.z };
			for (int i = 0; i < 3; ++i)
			{
				// The solid is n . x <= offset: along an axis the normal lies on, it ends at the plane.
				if (c[i] == 1.0)
				{
					hi[i] = offset;
				}
				else if (c[i] == -1.0)
				{
					lo[i] = -offset;
				}
			}
			box = aabb_make(sn_v3(lo[0], lo[1], lo[2]), sn_v3(hi[0], hi[1], hi[2]));
			break;
		}
		case COLLIDE_SHAPE_TYPE_COUNT:
		default:
			box = aabb_point(xf.p);
			break;
	}
	return aabb_extend(box, margin);
}

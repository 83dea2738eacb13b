// Narrowphase dispatch: a switch on the two shape types (narrowphase.h lists the families). The pair is
// put in canonical order (plane, mesh, sphere, capsule, box, cylinder, hull) so each family is written
// once; a swapped pair's manifolds are flipped back (normal reversed, id halves exchanged) so the caller
// always gets normals from its first shape to its second.
#include "collide/narrowphase.h"

static int rank(collide_shape_type type)
{
	switch (type)
	{
		case COLLIDE_PLANE:
			return 0;
		case COLLIDE_MESH:
			return 1;
		case COLLIDE_SPHERE:
			return 2;
		case COLLIDE_CAPSULE:
			return 3;
		case COLLIDE_BOX:
			return 4;
		case COLLIDE_CYLINDER:
			return 5;
		case COLLIDE_HULL:
			return 6;
		case COLLIDE_SHAPE_TYPE_COUNT:
			break;
	}
	return 7;
}

static int one(const collide_manifold* m)
{
	return m->point_count > 0 ? 1 : 0;
}

// a and b in canonical order.
static int dispatch(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb, double margin,
					collide_manifold* out)
{
	out[0].point_count = 0;
	switch (a->type)
	{
		case COLLIDE_PLANE:
			switch (b->type)
			{
				case COLLIDE_SPHERE:
					collide_plane_sphere(&a->plane, xa, &b->sphere, xb, margin, out);
					return one(out);
				case COLLIDE_CAPSULE:
					collide_plane_capsule(&a->plane, xa, &b->capsule, xb, margin, out);
					return one(out);
				case COLLIDE_BOX:
					collide_plane_box(&a->plane, xa, &b->box, xb, margin, out);
					return one(out);
				case COLLIDE_CYLINDER:
					collide_plane_cylinder(&a->plane, xa, &b->cylinder, xb, margin, out);
					return one(out);
				case COLLIDE_HULL:
					collide_plane_hull(&a->plane, xa, b->hull, xb, margin, out);
					return one(out);
				case COLLIDE_PLANE:
				case COLLIDE_MESH:
				case COLLIDE_SHAPE_TYPE_COUNT:
					return 0; // static against static
			}
			return 0;
		case COLLIDE_MESH:
			if (collide_type_is_convex(b->type))
			{
				return collide_mesh_convex(a->mesh, xa, b, xb, margin, out);
			}
			return 0;
		case COLLIDE_SPHERE:
			switch (b->type)
			{
				case COLLIDE_SPHERE:
					collide_sphere_sphere(&a->sphere, xa, &b->sphere, xb, margin, out);
					return one(out);
				case COLLIDE_CAPSULE:
					collide_sphere_capsule(&a->sphere, xa, &b->capsule, xb, margin, out);
					return one(out);
				case COLLIDE_BOX:
					collide_sphere_box(&a->sphere, xa, &b->box, xb, margin, out);
					return one(out);
				default:
					break;
			}
			break;
		case COLLIDE_CAPSULE:
			switch (b->type)
			{
				case COLLIDE_CAPSULE:
					collide_capsule_capsule(&a->capsule, xa, &b->capsule, xb, margin, out);
					return one(out);
				case COLLIDE_BOX:
					collide_capsule_box(&a->capsule, xa, &b->box, xb, margin, out);
					return one(out);
				default:
					break;
			}
			break;
		case COLLIDE_BOX:
			if (b->type == COLLIDE_BOX)
			{
				collide_box_box(&a->box, xa, &b->box, xb, margin, out);
				return one(out);
			}
			break;
		case COLLIDE_CYLINDER:
		case COLLIDE_HULL:
			break;
		case COLLIDE_SHAPE_TYPE_COUNT:
			return 0;
	}
	// Every remaining convex pair (a cylinder or a hull on either side).
	if (collide_type_is_convex(a->type) && collide_type_is_convex(b->type))
	{
		collide_convex_shapes(a, xa, b, xb, margin, out);
		return one(out);
	}
	return 0;
}

int collide_shapes(const collide_shape* a, sn_transform xa, const collide_shape* b, sn_transform xb, double margin,
				   collide_manifold* out)
{
	if (rank(a->type) <= rank(b->type))
	{
		return dispatch(a, xa, b, xb, margin, out);
	}
	int count = dispatch(b, xb, a, xa, margin, out);
	for (int i = 0; i < count; ++i)
	{
		manifold_flip(&out[i]);
	}
	return count;
}

// Shape geometry: constructors, validation and sizes (geometry.h says what each shape is).
#include "collide/geometry.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char* collide_shape_type_name(collide_shape_type type)
{
	switch (type)
	{
		case COLLIDE_SPHERE:
			return "sphere";
		case COLLIDE_CAPSULE:
			return "capsule";
		case COLLIDE_BOX:
			return "box";
		case COLLIDE_CYLINDER:
			return "cylinder";
		case COLLIDE_HULL:
			return "hull";
		case COLLIDE_MESH:
			return "mesh";
		case COLLIDE_PLANE:
			return "plane";
		case COLLIDE_SHAPE_TYPE_COUNT:
			break;
	}
	return "unknown";
}

void collide_detail(char* detail, size_t capacity, const char* format, ...)
{
	if (detail == NULL || capacity == 0)
	{
		return;
	}
	va_list args;
	va_start(args, format);
	vsnprintf(detail, capacity, format, args);
	va_end(args);
}

static collide_shape blank(collide_shape_type type)
{
	collide_shape s;
	memset(&s, 0, sizeof(s));
	s.type = type;
	return s;
}

collide_shape collide_make_sphere(double radius)
{
	collide_shape s = blank(COLLIDE_SPHERE);
	s.sphere.radius = radius;
	return s;
}

collide_shape collide_make_capsule(double radius, double half_length)
{
	collide_shape s = blank(COLLIDE_CAPSULE);
	s.capsule.radius = radius;
	s.capsule.half_length = half_length;
	return s;
}

collide_shape collide_make_box(sn_vec3 half_extents)
{
	collide_shape s = blank(COLLIDE_BOX);
	s.box.half_extents = half_extents;
	return s;
}

collide_shape collide_make_cylinder(double radius, double half_height)
{
	collide_shape s = blank(COLLIDE_CYLINDER);
	s.cylinder.radius = radius;
	s.cylinder.half_height = half_height;
	return s;
}

collide_shape collide_make_hull(const collide_hull* hull)
{
	collide_shape s = blank(COLLIDE_HULL);
	s.hull = hull;
	return s;
}

collide_shape collide_make_mesh(const collide_mesh* mesh)
{
	collide_shape s = blank(COLLIDE_MESH);
	s.mesh = mesh;
	return s;
}

collide_shape collide_make_plane(sn_vec3 normal, double offset)
{
	collide_shape s = blank(COLLIDE_PLANE);
	s.plane.normal = sn_normalize(normal);
	s.plane.offset = offset;
	return s;
}

// One size: finite, not negative, not zero or tiny, not huge. zero_ok admits exactly 0 (a capsule's
// half-length).
static sn_error check_size(const char* shape, const char* field, double value, bool zero_ok, char* detail,
						   size_t capacity)
{
	if (!isfinite(value))
	{
		collide_detail(detail, capacity, "%s %s is %g (must be finite)", shape, field, value);
		return SN_ERR_NOT_FINITE;
	}
	if (value < 0.0)
	{
		collide_detail(detail, capacity, "%s %s is %g m (must be positive)", shape, field, value);
		return SN_ERR_NEGATIVE_VALUE;
	}
	if (value == 0.0 && zero_ok)
	{
		return SN_ERR_OK;
	}
	if (value < COLLIDE_MIN_SIZE)
	{
		collide_detail(detail, capacity, "%s %s is %g m (must be at least %g m)", shape, field, value,
					   COLLIDE_MIN_SIZE);
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (value > COLLIDE_MAX_SIZE)
	{
		collide_detail(detail, capacity, "%s %s is %g m (must be at most %g m)", shape, field, value, COLLIDE_MAX_SIZE);
		return SN_ERR_INVALID_ARGUMENT;
	}
	return SN_ERR_OK;
}

sn_error collide_shape_check(const collide_shape* shape, char* detail, size_t capacity)
{
	if (shape == NULL)
	{
		collide_detail(detail, capacity, "shape is NULL");
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_error err = SN_ERR_OK;
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
			return check_size("sphere", "radius", shape->sphere.radius, false, detail, capacity);
		case COLLIDE_CAPSULE:
			err = check_size("capsule", "radius", shape->capsule.radius, false, detail, capacity);
			if (err == SN_ERR_OK)
			{
				err = check_size("capsule", "half_length", shape->capsule.half_length, true, detail, capacity);
			}
			return err;
		case COLLIDE_BOX:
			err = check_size("box", "half_extents.x", shape->box.half_extents.x, false, detail, capacity);
			if (err == SN_ERR_OK)
			{
				err = check_size("box", "half_extents.y", shape->box.half_extents.y, false, detail, capacity);
			}
			if (err == SN_ERR_OK)
			{
				err = check_size("box", "half_extents.z", shape->box.half_extents.z, false, detail, capacity);
			}
			return err;
		case COLLIDE_CYLINDER:
			err = check_size("cylinder", "radius", shape->cylinder.radius, false, detail, capacity);
			if (err == SN_ERR_OK)
			{
				err = check_size("cylinder", "half_height", shape->cylinder.half_height, false, detail, capacity);
			}
			return err;
		case COLLIDE_HULL:
			if (shape->hull == NULL)
			{
				collide_detail(detail, capacity, "hull shape has no hull (build one with hull_build)");
				return SN_ERR_INVALID_ARGUMENT;
			}
			return SN_ERR_OK;
		case COLLIDE_MESH:
			if (shape->mesh == NULL)
			{
				collide_detail(detail, capacity, "mesh shape has no mesh (build one with mesh_build)");
				return SN_ERR_INVALID_ARGUMENT;
			}
			return SN_ERR_OK;
		case COLLIDE_PLANE:
		{
			sn_vec3 n = shape->plane.normal;
			if (!sn_vec3_is_finite(n) || !isfinite(shape->plane.offset))
			{
				collide_detail(detail, capacity, "plane normal (%g, %g, %g) or offset %g is not finite", n.x, n.y, n.z,
							   shape->plane.offset);
				return SN_ERR_NOT_FINITE;
			}
			double len = sn_length(n);
			if (len == 0.0)
			{
				collide_detail(detail, capacity, "plane normal is zero");
				return SN_ERR_ZERO_AXIS;
			}
			// collide_make_plane normalises; a hand-filled normal must be unit to 1e-9 (the narrowphase
			// measures distances with it).
			if (fabs(len - 1.0) > 1e-9)
			{
				collide_detail(detail, capacity, "plane normal has length %.17g (must be unit)", len);
				return SN_ERR_INVALID_ARGUMENT;
			}
			if (fabs(shape->plane.offset) > COLLIDE_MAX_SIZE)
			{
				collide_detail(detail, capacity, "plane offset is %g m (must be within %g m)", shape->plane.offset,
							   COLLIDE_MAX_SIZE);
				return SN_ERR_INVALID_ARGUMENT;
			}
			return SN_ERR_OK;
		}
		case COLLIDE_SHAPE_TYPE_COUNT:
			break;
	}
	collide_detail(detail, capacity, "shape type %d is not a shape type", (int)shape->type);
	return SN_ERR_INVALID_ARGUMENT;
}

double collide_shape_size(const collide_shape* shape)
{
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
			return 2.0 * shape->sphere.radius;
		case COLLIDE_CAPSULE:
			return 2.0 * (shape->capsule.radius + shape->capsule.half_length);
		case COLLIDE_BOX:
		{
			sn_vec3 h = shape->box.half_extents;
			return 2.0 * fmax(h.x, fmax(h.y, h.z));
		}
		case COLLIDE_CYLINDER:
			return 2.0 * fmax(shape->cylinder.radius, shape->cylinder.half_height);
		case COLLIDE_HULL:
			return shape->hull->size;
		case COLLIDE_MESH:
			return shape->mesh->size;
		case COLLIDE_PLANE:
		case COLLIDE_SHAPE_TYPE_COUNT:
			break;
	}
	return INFINITY;
}

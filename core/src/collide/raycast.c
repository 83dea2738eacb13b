// Ray casts against each shape, in the shape's frame: o + t d with o = xf^-1 origin, d = R^T translation
// (Ericson, "Real-Time Collision Detection", 5.3).
//   sphere    |o + t d|^2 = r^2: t = (-b - sqrt(b^2 - a c)) / a, a = d.d, b = o.d, c = o.o - r^2
//   plane     t = (offset - n.o) / (n.d), entering only from the open side (n.d < 0)
//   box       slabs (Kay and Kajiya): entry = the largest per-axis entry, exit = the smallest exit; the
//             entry axis gives the normal
//   hull      the same with face planes: entry = max over faces facing the ray of (offset - n.o)/(n.d)
//   cylinder  the side, (o_xy + t d_xy)^2 = r^2 with |z| <= h, and the caps, z = +-h with x^2 + y^2 <= r^2
//   capsule   the side of its cylinder and its two end spheres: the union is convex and the ray starts
//             outside it, so its entry is the least entry of the parts
//   mesh      the BVH's leaves along the ray (mesh.c), each triangle by Moller and Trumbore (1997),
//             two-sided, keeping the nearest
// A ray from inside a solid reports no hit, so each routine first tests whether o is inside.
#include "collide/mesh.h"
#include "collide/query.h"

#include <math.h>

typedef struct local_hit
{
	double t;
	sn_vec3 normal; // local
	int32_t triangle;
} local_hit;

// Entry of o + t d into the sphere of radius r at c; false if it misses or starts inside.
static bool sphere_entry(sn_vec3 o, sn_vec3 d, sn_vec3 c, double r, double* t_out)
{
	sn_vec3 m = sn_sub(o, c);
	double a = sn_dot(d, d), b = sn_dot(m, d), cc = sn_dot(m, m) - r * r;
	if (cc <= 0.0 || b >= 0.0 || a == 0.0)
	{
		return false; // inside, or moving away
	}
	double disc = b * b - a * cc;
	if (disc < 0.0)
	{
		return false;
	}
	*t_out = (-b - sqrt(disc)) / a;
	return true;
}

// Entry through the side of the infinite cylinder x^2 + y^2 = r^2 within |z| <= h.
static bool side_entry(sn_vec3 o, sn_vec3 d, double r, double h, double* t_out)
{
	double a = d.x * d.x + d.y * d.y, b = o.x * d.x + o.y * d.y, c = o.x * o.x + o.y * o.y - r * r;
	if (c <= 0.0 || b >= 0.0 || a == 0.0)
	{
		return false;
	}
	double disc = b * b - a * c;
	if (disc < 0.0)
	{
		return false;
	}
	double t = (-b - sqrt(disc)) / a;
	double z = o.z + t * d.z;
	if (z < -h || z > h)
	{
		return false;
	}
	*t_out = t;
	return true;
}

static bool box_ray(sn_vec3 h, sn_vec3 o, sn_vec3 d, double max_t, local_hit* hit)
{
	const double ov[3] = { o.x, o.y, o.z }, dv[3] = { d.x, d.y, d.z }, hv[3] = { h.x, h.y, h.z };
	if (fabs(o.x) <= h.x && fabs(o.y) <= h.y && fabs(o.z) <= h.z)
	{
		return false;
	}
	double enter = -INFINITY, leave = INFINITY;
	int axis = -1;
	double sign = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		if (dv[i] == 0.0)
		{
			if (ov[i] < -hv[i] || ov[i] > hv[i])
			{
				return false;
			}
			continue;
		}
		double t1 = (-hv[i] - ov[i]) / dv[i], t2 = (hv[i] - ov[i]) / dv[i];
		double s = -1.0;
		if (t1 > t2)
		{
			double t = t1;
			t1 = t2;
			t2 = t;
			s = 1.0;
		}
		if (t1 > enter)
		{
			enter = t1;
			axis = i;
			sign = s;
		}
		leave = fmin(leave, t2);
	}
	if (axis < 0 || enter > leave || enter < 0.0 || enter > max_t)
	{
		return false;
	}
	hit->t = enter;
	hit->normal = sn_v3(axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0);
	return true;
}

static bool hull_ray(const collide_hull* hull, sn_vec3 o, sn_vec3 d, double max_t, local_hit* hit)
{
	double enter = -INFINITY, leave = INFINITY;
	int face = -1;
	bool inside = true;
	for (int f = 0; f < hull->face_count; ++f)
	{
		sn_vec3 n = hull->planes[f].normal;
		double height = sn_dot(n, o) - hull->planes[f].offset;
		double rate = sn_dot(n, d);
		inside = inside && height <= 0.0;
		if (rate == 0.0)
		{
			if (height > 0.0)
			{
				return false;
			}
			continue;
		}
		double t = -height / rate;
		if (rate < 0.0)
		{
			if (t > enter)
			{
				enter = t;
				face = f;
			}
		}
		else
		{
			leave = fmin(leave, t);
		}
	}
	if (inside || face < 0 || enter > leave || enter < 0.0 || enter > max_t)
	{
		return false;
	}
	hit->t = enter;
	hit->normal = hull->planes[face].normal;
	return true;
}

static bool cylinder_ray(double r, double h, sn_vec3 o, sn_vec3 d, double max_t, local_hit* hit)
{
	if (o.x * o.x + o.y * o.y <= r * r && fabs(o.z) <= h)
	{
		return false;
	}
	double best = INFINITY;
	sn_vec3 normal = sn_v3(0, 0, 0);
	double t;
	if (side_entry(o, d, r, h, &t))
	{
		best = t;
		sn_vec3 p = sn_add(o, sn_scale(t, d));
		normal = sn_normalize(sn_v3(p.x, p.y, 0.0));
	}
	for (int cap = -1; cap <= 1; cap += 2)
	{
		// Entering cap z = cap h from outside: o.z beyond it and d moving back in.
		if (d.z * cap < 0.0 && o.z * cap > h)
		{
			t = (cap * h - o.z) / d.z;
			sn_vec3 p = sn_add(o, sn_scale(t, d));
			if (p.x * p.x + p.y * p.y <= r * r && t < best)
			{
				best = t;
				normal = sn_v3(0, 0, cap);
			}
		}
	}
	if (!(best <= max_t))
	{
		return false;
	}
	hit->t = best;
	hit->normal = normal;
	return true;
}

static bool capsule_ray(double r, double h, sn_vec3 o, sn_vec3 d, double max_t, local_hit* hit)
{
	// Inside: within r of the segment.
	double z = fmin(fmax(o.z, -h), h);
	if (sn_length_sq(sn_sub(o, sn_v3(0, 0, z))) <= r * r)
	{
		return false;
	}
	double best = INFINITY;
	sn_vec3 normal = sn_v3(0, 0, 0);
	double t;
	if (side_entry(o, d, r, h, &t))
	{
		best = t;
		sn_vec3 p = sn_add(o, sn_scale(t, d));
		normal = sn_normalize(sn_v3(p.x, p.y, 0.0));
	}
	for (int end = -1; end <= 1; end += 2)
	{
		sn_vec3 c = sn_v3(0, 0, end * h);
		if (sphere_entry(o, d, c, r, &t) && t < best)
		{
			best = t;
			normal = sn_normalize(sn_sub(sn_add(o, sn_scale(t, d)), c));
		}
	}
	if (!(best <= max_t))
	{
		return false;
	}
	hit->t = best;
	hit->normal = normal;
	return true;
}

typedef struct mesh_ray
{
	const collide_mesh* mesh;
	sn_vec3 o, d;
	local_hit best;
	bool found;
} mesh_ray;

// Moller-Trumbore, two-sided. Returns the new end of the ray.
static double mesh_ray_visit(void* context, int triangle, double max_fraction)
{
	mesh_ray* r = (mesh_ray*)context;
	sn_vec3 p[3];
	mesh_triangle(r->mesh, triangle, p);
	sn_vec3 e1 = sn_sub(p[1], p[0]), e2 = sn_sub(p[2], p[0]);
	sn_vec3 q = sn_cross(r->d, e2);
	double det = sn_dot(e1, q);
	if (det == 0.0)
	{
		return max_fraction; // parallel to the triangle's plane
	}
	double inv = 1.0 / det;
	sn_vec3 s = sn_sub(r->o, p[0]);
	double u = sn_dot(s, q) * inv;
	if (u < 0.0 || u > 1.0)
	{
		return max_fraction;
	}
	sn_vec3 qq = sn_cross(s, e1);
	double v = sn_dot(r->d, qq) * inv;
	if (v < 0.0 || u + v > 1.0)
	{
		return max_fraction;
	}
	double t = sn_dot(e2, qq) * inv;
	if (t < 0.0 || t > max_fraction)
	{
		return max_fraction;
	}
	sn_vec3 n = sn_normalize(sn_cross(e1, e2));
	r->best.t = t;
	r->best.normal = sn_dot(n, r->d) > 0.0 ? sn_neg(n) : n;
	r->best.triangle = triangle;
	r->found = true;
	return t;
}

bool collide_ray_cast(const collide_shape* shape, sn_transform xf, sn_vec3 origin, sn_vec3 translation,
					  double max_fraction, collide_ray_hit* hit)
{
	if (sn_length_sq(translation) == 0.0 || !(max_fraction >= 0.0))
	{
		return false;
	}
	sn_vec3 o = sn_inv_transform_point(xf, origin);
	sn_vec3 d = sn_inv_rotate(xf.q, translation);
	local_hit h;
	h.triangle = -1;
	bool found = false;
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
		{
			double t;
			found = sphere_entry(o, d, sn_v3(0, 0, 0), shape->sphere.radius, &t) && t <= max_fraction;
			if (found)
			{
				h.t = t;
				h.normal = sn_normalize(sn_add(o, sn_scale(t, d)));
			}
			break;
		}
		case COLLIDE_CAPSULE:
			found = capsule_ray(shape->capsule.radius, shape->capsule.half_length, o, d, max_fraction, &h);
			break;
		case COLLIDE_BOX:
			found = box_ray(shape->box.half_extents, o, d, max_fraction, &h);
			break;
		case COLLIDE_CYLINDER:
			found = cylinder_ray(shape->cylinder.radius, shape->cylinder.half_height, o, d, max_fraction, &h);
			break;
		case COLLIDE_HULL:
			found = hull_ray(shape->hull, o, d, max_fraction, &h);
			break;
		case COLLIDE_MESH:
		{
			mesh_ray r = { shape->mesh, o, d, { 0, { 0, 0, 0 }, -1 }, false };
			bvh_ray_cast(shape->mesh, o, d, max_fraction, mesh_ray_visit, &r);
			found = r.found;
			h = r.best;
			break;
		}
		case COLLIDE_PLANE:
		{
			sn_vec3 n = shape->plane.normal;
			double height = sn_dot(n, o) - shape->plane.offset;
			double rate = sn_dot(n, d);
			if (height > 0.0 && rate < 0.0)
			{
				double t = -height / rate;
				if (t <= max_fraction)
				{
					found = true;
					h.t = t;
					h.normal = n;
				}
			}
			break;
		}
		case COLLIDE_SHAPE_TYPE_COUNT:
			break;
	}
	if (!found)
	{
		return false;
	}
	hit->fraction = h.t;
	hit->point = sn_add(origin, sn_scale(h.t, translation));
	hit->normal = sn_rotate(xf.q, h.normal);
	hit->triangle = h.triangle;
	return true;
}

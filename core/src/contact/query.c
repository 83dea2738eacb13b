// Queries against the world's shapes: ray casts (closest and all hits), overlap of a solid placed in the
// world, closest points of two shapes. The broadphase trees find the candidates (planes, kept out of
// them, are tested one by one), the kernels (collide/raycast.c, collide/query.c) answer for each.
//
// Queries see shapes where they are now: if bodies moved since the last step (the step itself, or a
// setter), the proxies are first brought up to the current poses (contact_refresh_proxies), which is what
// the next step would do anyway. Results are ordered by fraction and then slot (rays) or by slot
// (overlaps), never by the trees' layout.
#include "contact/contact.h"

#include "collide/bounds.h"
#include "collide/query.h"
#include "world.h"

#include <float.h>
#include <math.h>
#include <string.h>

sn_query_filter sn_default_query_filter(void)
{
	sn_query_filter f = { UINT64_MAX, UINT64_MAX, false };
	return f;
}

static bool passes(const shape* s, const sn_query_filter* f)
{
	return (s->filter.category & f->mask) != 0 && (s->filter.mask & f->category) != 0 &&
		(f->include_sensors || !s->sensor) && !(s->flags & SHAPE_FAR);
}

static sn_error check_ray(sn_world* world, const char* what, sn_vec3 origin, sn_vec3 translation)
{
	if (!sn_vec3_is_finite(origin) || !sn_vec3_is_finite(translation))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: origin and translation must be finite", what);
	}
	double e = SN_COLLIDE_WORLD_EXTENT;
	if (!(sn_length(origin) <= e && sn_length(translation) <= 2.0 * e))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "%s: the ray must start within %g m of the origin and be at most %g m long", what, e,
						  2.0 * e);
	}
	return SN_ERR_OK;
}

// ---- rays ----------------------------------------------------------------------------------------------

typedef struct ray_query
{
	sn_world* world;
	const sn_query_filter* filter;
	sn_vec3 origin, translation;
	bool all;
	// closest
	bool found;
	int32_t best_slot;
	sn_ray_hit best;
	// all: the `capacity` nearest, sorted, and the total
	sn_ray_hit* hits;
	int capacity;
	int count;
} ray_query;

static bool hit_before(double fa, int32_t sa, double fb, int32_t sb)
{
	return fa < fb || (fa == fb && sa < sb);
}

// One shape against the ray; returns the ray's new end for the tree walk.
static double ray_shape(ray_query* q, int32_t slot, double max_fraction)
{
	const shape* s = q->world->contacts.shapes + slot;
	if (!passes(s, q->filter))
	{
		return max_fraction;
	}
	collide_ray_hit h;
	if (!collide_ray_cast(&s->geom, s->xf, q->origin, q->translation, max_fraction, &h))
	{
		return max_fraction;
	}
	sn_ray_hit hit;
	hit.shape = shape_id_of(q->world, slot);
	hit.body = body_id_of(q->world, s->body);
	hit.point = h.point;
	hit.normal = h.normal;
	hit.fraction = h.fraction;
	hit.triangle = h.triangle;
	if (!q->all)
	{
		if (!q->found || hit_before(hit.fraction, slot, q->best.fraction, q->best_slot))
		{
			q->found = true;
			q->best = hit;
			q->best_slot = slot;
		}
		// Clip the walk at the best hit (never to 0, which stops it: a tie at 0 may still come).
		return q->best.fraction > 0.0 ? q->best.fraction : DBL_TRUE_MIN;
	}
	// Insert into the sorted nearest `capacity`.
	int n = q->count < q->capacity ? q->count : q->capacity;
	int at = n;
	while (at > 0 && hit_before(hit.fraction, slot, q->hits[at - 1].fraction, q->hits[at - 1].shape.index1 - 1))
	{
		at -= 1;
	}
	if (at < q->capacity)
	{
		int last = n < q->capacity ? n : q->capacity - 1;
		for (int k = last; k > at; --k)
		{
			q->hits[k] = q->hits[k - 1];
		}
		q->hits[at] = hit;
	}
	q->count += 1;
	return max_fraction;
}

static double ray_visit(void* context, int32_t proxy, int32_t user, double max_fraction)
{
	(void)proxy;
	return ray_shape((ray_query*)context, user, max_fraction);
}

static void cast(ray_query* q)
{
	contact_state* c = &q->world->contacts;
	contact_refresh_proxies(q->world);
	broadphase_ray_cast(&c->bp, q->origin, q->translation, 1.0, q->filter->mask, ray_visit, q);
	double end = q->all || !q->found ? 1.0 : (q->best.fraction > 0.0 ? q->best.fraction : DBL_TRUE_MIN);
	for (int k = 0; k < c->plane_count; ++k)
	{
		double e = ray_shape(q, c->planes[k], end);
		end = q->all ? end : e;
	}
}

sn_error sn_world_ray_cast_closest(sn_world* world, sn_vec3 origin, sn_vec3 translation, const sn_query_filter* filter,
								   sn_ray_hit* hit, bool* hit_found)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "ray cast";
	if (hit == NULL || hit_found == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: hit and hit_found must not be NULL", what);
	}
	sn_error err = check_ray(world, what, origin, translation);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_query_filter all = sn_default_query_filter();
	ray_query q;
	memset(&q, 0, sizeof(q));
	q.world = world;
	q.filter = filter != NULL ? filter : &all;
	q.origin = origin;
	q.translation = translation;
	cast(&q);
	*hit_found = q.found;
	if (q.found)
	{
		*hit = q.best;
	}
	return SN_ERR_OK;
}

sn_error sn_world_ray_cast_all(sn_world* world, sn_vec3 origin, sn_vec3 translation, const sn_query_filter* filter,
							   sn_ray_hit* hits, int capacity, int* count)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "ray cast";
	if (count == NULL || capacity < 0 || (capacity > 0 && hits == NULL))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: count must not be NULL, capacity >= 0 with hits", what);
	}
	sn_error err = check_ray(world, what, origin, translation);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_query_filter all = sn_default_query_filter();
	ray_query q;
	memset(&q, 0, sizeof(q));
	q.world = world;
	q.filter = filter != NULL ? filter : &all;
	q.origin = origin;
	q.translation = translation;
	q.all = true;
	q.hits = hits;
	q.capacity = capacity;
	cast(&q);
	*count = q.count;
	return SN_ERR_OK;
}

// ---- overlap ---------------------------------------------------------------------------------------------

typedef struct overlap_query
{
	sn_world* world;
	const sn_query_filter* filter;
	const collide_shape* geom;
	sn_transform pose;
	sn_shape_id* out; // the `capacity` smallest slots, sorted
	int capacity;
	int count;
} overlap_query;

static void overlap_shape(overlap_query* q, int32_t slot)
{
	const shape* s = q->world->contacts.shapes + slot;
	if (!passes(s, q->filter) || !collide_overlap(q->geom, q->pose, &s->geom, s->xf))
	{
		return;
	}
	int n = q->count < q->capacity ? q->count : q->capacity;
	int at = n;
	while (at > 0 && q->out[at - 1].index1 - 1 > slot)
	{
		at -= 1;
	}
	if (at < q->capacity)
	{
		int last = n < q->capacity ? n : q->capacity - 1;
		for (int k = last; k > at; --k)
		{
			q->out[k] = q->out[k - 1];
		}
		q->out[at] = shape_id_of(q->world, slot);
	}
	q->count += 1;
}

static bool overlap_visit(void* context, int32_t proxy, int32_t user)
{
	(void)proxy;
	overlap_shape((overlap_query*)context, user);
	return true;
}

sn_error sn_world_overlap_geometry(sn_world* world, const sn_geometry* geometry, sn_transform pose,
								   const sn_query_filter* filter, sn_shape_id* shapes, int capacity, int* count)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "overlap query";
	if (geometry == NULL || count == NULL || capacity < 0 || (capacity > 0 && shapes == NULL))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "%s: geometry and count must not be NULL, capacity >= 0 with shapes", what);
	}
	if (geometry->type == SN_SHAPE_MESH || geometry->type == SN_SHAPE_PLANE)
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "%s: the query solid must be convex (not a %s)", what,
						  sn_shape_type_name(geometry->type));
	}
	sn_transform unit;
	if (!sn_vec3_is_finite(pose.p) || !sn_quat_is_finite(pose.q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: pose must be finite", what);
	}
	if (sn_quat_length(pose.q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "%s: pose rotation quaternion has zero length", what);
	}
	if (!(sn_length(pose.p) <= SN_COLLIDE_WORLD_EXTENT))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: pose must be within %g m of the origin", what,
						  SN_COLLIDE_WORLD_EXTENT);
	}
	unit.p = pose.p;
	unit.q = sn_quat_normalize(pose.q);
	collide_shape geom;
	shape_source* source = NULL;
	sn_error err = shape_build_geometry(world, what, geometry, &geom, &source);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_query_filter all = sn_default_query_filter();
	overlap_query q;
	memset(&q, 0, sizeof(q));
	q.world = world;
	q.filter = filter != NULL ? filter : &all;
	q.geom = &geom;
	q.pose = unit;
	q.out = shapes;
	q.capacity = capacity;
	contact_state* c = &world->contacts;
	contact_refresh_proxies(world);
	broadphase_query(&c->bp, collide_shape_aabb(&geom, unit, 0.0), q.filter->mask, overlap_visit, &q);
	for (int k = 0; k < c->plane_count; ++k)
	{
		overlap_shape(&q, c->planes[k]);
	}
	shape_free_source(world, source);
	*count = q.count;
	return SN_ERR_OK;
}

// ---- closest points ------------------------------------------------------------------------------------

sn_error sn_shape_get_closest_points(sn_world* world, sn_shape_id a, sn_shape_id b, sn_distance_result* out)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "closest points";
	const shape* sa = shape_get(world, a);
	const shape* sb = shape_get(world, b);
	if (sa == NULL || sb == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "%s: %s is not a live shape", what, sa == NULL ? "a" : "b");
	}
	if (out == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: out must not be NULL", what);
	}
	collide_distance_output d;
	if (!collide_distance(&sa->geom, shape_pose_now(world, sa), &sb->geom, shape_pose_now(world, sb), &d))
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "%s: between a %s and a %s (two static shapes have none)", what,
						  sn_shape_type_name((sn_shape_type)sa->geom.type),
						  sn_shape_type_name((sn_shape_type)sb->geom.type));
	}
	out->distance = d.distance;
	out->point_a = d.point_a;
	out->point_b = d.point_b;
	out->normal = d.normal;
	return SN_ERR_OK;
}

// Shapes: defaults, validation, the shape pool, getters and setters, and mass properties from shapes.
//
// A shape is validated whole before anything changes, its hull or mesh built (collide/hull.c,
// collide/mesh.c) into storage of its own, and it enters the broadphase through a proxy in the tree of
// its body's type (planes stay out of the trees: contact/update.c pairs them). Each body keeps its shapes
// in a list in creation order (the world's own shapes hang off contact_state.world_shape_head).
//
// Mass from shapes: each solid's closed form or divergence-theorem integral (collide/mass.c) at the
// density, placed by its local pose (centre c' = p + R c, inertia R I R^T), and the parts combined about
// their common centre of mass by the parallel-axis theorem (collide_mass_combine).
#include "shape.h"
#include "island.h"

#include "artic/artic.h"
#include "body.h"
#include "collide/bounds.h"
#include "collide/hull.h"
#include "collide/mass.h"
#include "collide/mesh.h"
#include "constraint/soft.h"
#include "math/mathx.h"
#include "world.h"

#include "sinew/body.h"
#include "sinew/shape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The public shape types and limits are the kernels', value for value (the sizes, doubles, are checked by
// the tests).
_Static_assert((int)SN_SHAPE_SPHERE == (int)COLLIDE_SPHERE && (int)SN_SHAPE_CAPSULE == (int)COLLIDE_CAPSULE &&
				   (int)SN_SHAPE_BOX == (int)COLLIDE_BOX && (int)SN_SHAPE_CYLINDER == (int)COLLIDE_CYLINDER &&
				   (int)SN_SHAPE_HULL == (int)COLLIDE_HULL && (int)SN_SHAPE_MESH == (int)COLLIDE_MESH &&
				   (int)SN_SHAPE_PLANE == (int)COLLIDE_PLANE &&
				   (int)SN_SHAPE_TYPE_COUNT == (int)COLLIDE_SHAPE_TYPE_COUNT,
			   "shape types");
_Static_assert(SN_SHAPE_MAX_HULL_VERTICES == COLLIDE_HULL_MAX_VERTICES &&
				   SN_SHAPE_MAX_HULL_POINTS == COLLIDE_HULL_MAX_POINTS &&
				   SN_SHAPE_MAX_MESH_TRIANGLES == COLLIDE_MESH_MAX_TRIANGLES &&
				   SN_SHAPE_MAX_MESH_VERTICES == COLLIDE_MESH_MAX_VERTICES,
			   "shape limits");
_Static_assert(SN_MANIFOLD_MAX_POINTS == COLLIDE_MANIFOLD_POINTS, "manifold points");

const char* sn_shape_type_name(sn_shape_type type)
{
	return collide_shape_type_name((collide_shape_type)type);
}

sn_material sn_default_material(void)
{
	sn_material m;
	memset(&m, 0, sizeof(m));
	m.friction = 0.6;
	m.restitution = 0.0;
	m.soft = sn_soft_rigid();
	return m;
}

sn_filter sn_default_filter(void)
{
	sn_filter f = { 1u, UINT64_MAX };
	return f;
}

sn_shape_def sn_default_shape_def(void)
{
	sn_shape_def def;
	memset(&def, 0, sizeof(def));
	def.local_pose = sn_transform_identity();
	def.geometry = sn_geometry_sphere(0.1);
	def.material = sn_default_material();
	def.filter = sn_default_filter();
	return def;
}

// ---- the pool -----------------------------------------------------------------------------------------

shape* shape_get(const sn_world* world, sn_shape_id id)
{
	if (world == NULL || id.index1 <= 0 || id.index1 > world->contacts.shape_high)
	{
		return NULL;
	}
	const contact_state* c = &world->contacts;
	shape* s = c->shapes + (id.index1 - 1);
	return (s->live && world_id_generation(world, s->generation) == id.generation) ? s : NULL;
}

sn_shape_id shape_id_of(const sn_world* world, int32_t index)
{
	sn_shape_id id = { index + 1, world_id_generation(world, world->contacts.shapes[index].generation) };
	return id;
}

bool shape_body_is_static(const sn_world* world, int32_t owner)
{
	return owner < 0 || world->bodies[owner].type == SN_BODY_STATIC;
}

sn_transform shape_pose_now(const sn_world* world, const shape* s)
{
	if (s->body < 0)
	{
		return s->local;
	}
	return sn_transform_mul(body_motion_of(world, s->body).pose, s->local);
}

collide_plane shape_world_plane(const shape* s, sn_transform xf)
{
	collide_plane p;
	p.normal = sn_rotate(xf.q, s->geom.plane.normal);
	p.offset = s->geom.plane.offset + sn_dot(p.normal, xf.p);
	return p;
}

static broadphase_type proxy_type_of(sn_body_type type, bool world_shape)
{
	if (world_shape || type == SN_BODY_STATIC)
	{
		return BROADPHASE_STATIC;
	}
	return type == SN_BODY_KINEMATIC ? BROADPHASE_KINEMATIC : BROADPHASE_DYNAMIC;
}

static broadphase_type shape_proxy_type(const sn_world* world, const shape* s)
{
	return proxy_type_of(s->body >= 0 ? world->bodies[s->body].type : SN_BODY_STATIC, s->body < 0);
}

// ---- validation and geometry ---------------------------------------------------------------------------

static sn_error fail_detail(sn_world* world, sn_error err, const char* what, const char* detail)
{
	return world_fail(world, err, "%s: %s", what, detail);
}

double shape_reach(const collide_shape* g)
{
	switch (g->type)
	{
		case COLLIDE_SPHERE:
			return g->sphere.radius;
		case COLLIDE_CAPSULE:
			return g->capsule.half_length + g->capsule.radius;
		case COLLIDE_BOX:
			return sn_length(g->box.half_extents);
		case COLLIDE_CYLINDER:
			return sqrt(g->cylinder.radius * g->cylinder.radius + g->cylinder.half_height * g->cylinder.half_height);
		case COLLIDE_HULL:
		{
			double r = 0.0;
			for (int i = 0; i < g->hull->vertex_count; ++i)
			{
				r = fmax(r, sn_length(g->hull->vertices[i]));
			}
			return r;
		}
		default:
			return 0.0;
	}
}

void shape_free_source(sn_world* world, shape_source* source)
{
	if (source == NULL)
	{
		return;
	}
	hull_destroy(&world->memory, source->hull);
	mesh_destroy(&world->memory, source->mesh);
	memory_free(&world->memory, source, source->bytes);
}

// The source record of a hull (with room for its points) or a mesh.
static shape_source* new_source(sn_world* world, int point_count)
{
	size_t bytes = sizeof(shape_source) + (size_t)point_count * sizeof(sn_vec3);
	shape_source* src = memory_alloc(&world->memory, bytes);
	if (src != NULL)
	{
		src->bytes = bytes;
		src->point_count = point_count;
		src->points = point_count > 0 ? (sn_vec3*)(src + 1) : NULL;
	}
	return src;
}

sn_error shape_build_geometry(sn_world* world, const char* what, const sn_geometry* g, collide_shape* out,
							  shape_source** source)
{
	char detail[200];
	detail[0] = '\0';
	*source = NULL;
	collide_shape made;
	memset(&made, 0, sizeof(made));
	switch (g->type)
	{
		case SN_SHAPE_SPHERE:
			made = collide_make_sphere(g->sphere.radius);
			break;
		case SN_SHAPE_CAPSULE:
			made = collide_make_capsule(g->capsule.radius, g->capsule.half_length);
			break;
		case SN_SHAPE_BOX:
			made = collide_make_box(g->box.half_extents);
			break;
		case SN_SHAPE_CYLINDER:
			made = collide_make_cylinder(g->cylinder.radius, g->cylinder.half_height);
			break;
		case SN_SHAPE_PLANE:
		{
			sn_vec3 n = g->plane.normal;
			if (!sn_vec3_is_finite(n) || !isfinite(g->plane.offset))
			{
				return world_fail(world, SN_ERR_NOT_FINITE, "%s: plane normal and offset must be finite", what);
			}
			if (!(sn_length(n) > 1e-12))
			{
				return world_fail(world, SN_ERR_ZERO_AXIS, "%s: plane normal (%g, %g, %g) has no length", what, n.x,
								  n.y, n.z);
			}
			made = collide_make_plane(n, g->plane.offset);
			break;
		}
		case SN_SHAPE_HULL:
		{
			if (g->hull.points == NULL || g->hull.point_count < 4)
			{
				return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: a hull needs at least 4 points, got %d%s", what,
								  g->hull.point_count, g->hull.points == NULL ? " (points is NULL)" : "");
			}
			collide_hull* hull = NULL;
			sn_error err =
				hull_build(&world->memory, g->hull.points, g->hull.point_count, &hull, detail, sizeof(detail));
			if (err != SN_ERR_OK)
			{
				return fail_detail(world, err, what, detail);
			}
			shape_source* src = new_source(world, g->hull.point_count);
			if (src == NULL)
			{
				hull_destroy(&world->memory, hull);
				return world_fail(world, SN_ERR_NO_MEMORY, "%s: out of memory for the hull's points", what);
			}
			memcpy(src->points, g->hull.points, (size_t)g->hull.point_count * sizeof(sn_vec3));
			src->hull = hull;
			*source = src;
			*out = collide_make_hull(hull);
			return SN_ERR_OK;
		}
		case SN_SHAPE_MESH:
		{
			if (g->mesh.vertices == NULL || g->mesh.indices == NULL || g->mesh.triangle_count <= 0 ||
				g->mesh.vertex_count < 3)
			{
				return world_fail(world, SN_ERR_INVALID_ARGUMENT,
								  "%s: a mesh needs vertices (%d given) and at least one triangle (%d given)", what,
								  g->mesh.vertices == NULL ? 0 : g->mesh.vertex_count,
								  g->mesh.indices == NULL ? 0 : g->mesh.triangle_count);
			}
			collide_mesh* mesh = NULL;
			sn_error err = mesh_build(&world->memory, g->mesh.vertices, g->mesh.vertex_count, g->mesh.indices,
									  g->mesh.triangle_count, &mesh, detail, sizeof(detail));
			if (err != SN_ERR_OK)
			{
				return fail_detail(world, err, what, detail);
			}
			shape_source* src = new_source(world, 0);
			if (src == NULL)
			{
				mesh_destroy(&world->memory, mesh);
				return world_fail(world, SN_ERR_NO_MEMORY, "%s: out of memory for the mesh", what);
			}
			src->mesh = mesh;
			*source = src;
			*out = collide_make_mesh(mesh);
			return SN_ERR_OK;
		}
		default:
			return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown shape type %d", what, (int)g->type);
	}
	sn_error err = collide_shape_check(&made, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		return fail_detail(world, err, what, detail);
	}
	*out = made;
	return SN_ERR_OK;
}

sn_error shape_check_material(sn_world* world, const char* what, sn_material m)
{
	if (!isfinite(m.friction) || !isfinite(m.restitution))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: friction and restitution must be finite", what);
	}
	if (m.friction < 0.0 || m.restitution < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "%s: friction %g and restitution %g must be >= 0", what,
						  m.friction, m.restitution);
	}
	if (m.restitution > 1.0)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: restitution %g must be at most 1", what, m.restitution);
	}
	sn_error err = soft_check(m.soft);
	if (err == SN_ERR_NOT_FINITE || err == SN_ERR_NEGATIVE_VALUE)
	{
		return world_fail(world, err, "%s: contact softness values must be finite and >= 0", what);
	}
	if (err != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown softness kind %d", what, (int)m.soft.kind);
	}
	return SN_ERR_OK;
}

sn_error shape_check_local_pose(sn_world* world, const char* what, sn_transform pose, sn_transform* unit)
{
	if (!sn_vec3_is_finite(pose.p) || !sn_quat_is_finite(pose.q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: local pose must be finite", what);
	}
	if (sn_quat_length(pose.q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "%s: local pose rotation quaternion has zero length", what);
	}
	if (!(sn_length(pose.p) <= SN_SHAPE_MAX_SIZE))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: local pose offset %g m is beyond %g m", what,
						  sn_length(pose.p), SN_SHAPE_MAX_SIZE);
	}
	unit->p = pose.p;
	unit->q = sn_quat_normalize(pose.q);
	return SN_ERR_OK;
}

// ---- creation and destruction --------------------------------------------------------------------------

static int32_t* body_head(sn_world* world, int32_t owner)
{
	return owner < 0 ? &world->contacts.world_shape_head : &world->bodies[owner].shape_head;
}

static sn_error reserve_planes(sn_world* world, int extra)
{
	contact_state* c = &world->contacts;
	void* p = c->planes;
	if (!memory_reserve(&world->memory, &p, &c->plane_capacity, c->plane_count + extra, sizeof(int32_t)))
	{
		return SN_ERR_NO_MEMORY;
	}
	c->planes = p;
	return SN_ERR_OK;
}

static void add_plane(contact_state* c, int32_t index)
{
	int at = c->plane_count;
	while (at > 0 && c->planes[at - 1] > index)
	{
		c->planes[at] = c->planes[at - 1];
		at -= 1;
	}
	c->planes[at] = index;
	c->plane_count += 1;
}

static void remove_plane(contact_state* c, int32_t index)
{
	int w = 0;
	for (int i = 0; i < c->plane_count; ++i)
	{
		if (c->planes[i] != index)
		{
			c->planes[w++] = c->planes[i];
		}
	}
	c->plane_count = w;
}

// The proxy's first box: where the shape is now (the next update grows it by the step's motion).
static sn_error make_proxy(sn_world* world, int32_t index)
{
	shape* s = world->contacts.shapes + index;
	collide_aabb tight;
	bool far;
	contact_place_shape(world, s, index, world->def.time_step, &tight, &far);
	return broadphase_create_proxy_fat(&world->contacts.bp, &world->memory,
									   aabb_extend(tight, contact_fat_margin(world, s)), s->filter.category, index,
									   shape_proxy_type(world, s), true, &s->proxy);
}

sn_error sn_create_shape(sn_world* world, const sn_shape_def* def, sn_shape_id* out_id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "create shape";
	if (def == NULL || out_id == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: def and out_id must not be NULL", what);
	}
	int32_t body_index = -1;
	if (!sn_body_id_is_null(def->body))
	{
		if (body_get(world, def->body) == NULL)
		{
			return world_fail(world, SN_ERR_INVALID_ID, "%s: body is not a live body of this world", what);
		}
		body_index = def->body.index1 - 1;
	}
	sn_transform local;
	sn_error err = shape_check_local_pose(world, what, def->local_pose, &local);
	if (err == SN_ERR_OK)
	{
		err = shape_check_material(world, what, def->material);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_shape_type type = def->geometry.type;
	if ((type == SN_SHAPE_MESH || type == SN_SHAPE_PLANE) && !shape_body_is_static(world, body_index))
	{
		return world_fail(world, SN_ERR_WRONG_TYPE,
						  "%s: a %s is static geometry: put it on a static body or the world (a moving body takes "
						  "convex hulls)",
						  what, sn_shape_type_name(type));
	}
	// A link's first shape: its articulation's rows get room for contacts (every dof and a floating base's
	// velocity may become slots of a solve, artic/solve.c).
	artic* link_artic = NULL;
	if (body_index >= 0 && world->bodies[body_index].type == SN_BODY_LINK)
	{
		link_artic = world->artics->items + world->bodies[body_index].artic;
		if (link_artic->shape_count == 0)
		{
			link_artic->shape_count = 1;
			err = artic_reserve_rows(world, link_artic, NULL);
			link_artic->shape_count = 0;
			if (err != SN_ERR_OK)
			{
				return err;
			}
		}
	}
	collide_shape geom;
	shape_source* source = NULL;
	err = shape_build_geometry(world, what, &def->geometry, &geom, &source);
	if (err != SN_ERR_OK)
	{
		return err;
	}

	// Room for the slot and the plane list; the proxy last (its failure unwinds the slot).
	contact_state* c = &world->contacts;
	err = type == SN_SHAPE_PLANE ? reserve_planes(world, 1) : SN_ERR_OK;
	if (err == SN_ERR_OK && c->shape_free < 0)
	{
		void* p = c->shapes;
		if (c->shape_high == INT32_MAX / 4)
		{
			err = SN_ERR_CAPACITY;
		}
		else if (!memory_reserve(&world->memory, &p, &c->shape_capacity, c->shape_high + 1, sizeof(shape)))
		{
			err = SN_ERR_NO_MEMORY;
		}
		else
		{
			c->shapes = p;
		}
	}
	if (err != SN_ERR_OK)
	{
		shape_free_source(world, source);
		return world_fail(world, err, err == SN_ERR_CAPACITY ? "%s: too many shapes" : "%s: out of memory", what);
	}
	bool fresh = c->shape_free < 0;
	int32_t index = fresh ? c->shape_high : c->shape_free;
	shape* s = c->shapes + index;
	uint32_t generation = fresh ? 1u : s->generation;
	int32_t next_free = s->next_free;
	memset(s, 0, sizeof(*s));
	s->generation = generation;
	s->next_free = -1;
	s->live = true;
	s->sensor = def->is_sensor;
	s->body = body_index;
	s->next_in_body = -1;
	s->proxy = BROADPHASE_NULL_KEY;
	s->local = local;
	s->geom = geom;
	s->source = source;
	s->reach = shape_reach(&geom);
	s->material = def->material;
	s->filter = def->filter;
	s->user_data = def->user_data;
	s->flags = SHAPE_FIND_PAIRS;
	if (type != SN_SHAPE_PLANE)
	{
		err = make_proxy(world, index);
		if (err != SN_ERR_OK)
		{
			s->live = false;
			s->next_free = next_free;
			shape_free_source(world, source);
			return world_fail(world, err, "%s: out of memory for the broadphase proxy", what);
		}
	}
	else
	{
		contact_place_shape(world, s, index, world->def.time_step, NULL, NULL);
		add_plane(c, index);
	}
	if (fresh)
	{
		c->shape_high += 1;
	}
	else
	{
		c->shape_free = next_free;
	}
	c->shape_count += 1;
	if (link_artic != NULL)
	{
		link_artic->shape_count += 1;
	}
	// Last in its body's list: creation order.
	int32_t* link = body_head(world, body_index);
	while (*link >= 0)
	{
		link = &c->shapes[*link].next_in_body;
	}
	*link = index;
	*out_id = shape_id_of(world, index);
	island_wake_body(world, body_index);
	return SN_ERR_OK;
}

// Frees the slot of a live shape: out of its body's list, the trees or the plane list. Its pairs end in
// the next update (their generations no longer match).
static void destroy_shape(sn_world* world, int32_t index)
{
	contact_state* c = &world->contacts;
	shape* s = c->shapes + index;
	int32_t* link = body_head(world, s->body);
	while (*link != index)
	{
		link = &c->shapes[*link].next_in_body;
	}
	*link = s->next_in_body;
	if (s->proxy != BROADPHASE_NULL_KEY)
	{
		broadphase_destroy_proxy(&c->bp, s->proxy);
	}
	if (s->geom.type == COLLIDE_PLANE)
	{
		remove_plane(c, index);
	}
	shape_free_source(world, s->source);
	s->source = NULL;
	s->live = false;
	s->generation += 1;
	if (s->generation == 0)
	{
		s->generation = 1;
	}
	s->next_free = c->shape_free;
	c->shape_free = index;
	c->shape_count -= 1;
	if (s->body >= 0 && world->bodies[s->body].type == SN_BODY_LINK)
	{
		world->artics->items[world->bodies[s->body].artic].shape_count -= 1;
	}
}

sn_error sn_destroy_shape(sn_world* world, sn_shape_id id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (shape_get(world, id) == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "destroy shape: invalid shape id");
	}
	int32_t owner = world->contacts.shapes[id.index1 - 1].body;
	island_wake_body(world, owner);
	island_wake_touching(world, owner);
	destroy_shape(world, id.index1 - 1);
	return SN_ERR_OK;
}

void shape_destroy_body_shapes(sn_world* world, int32_t owner)
{
	int32_t* head = body_head(world, owner);
	while (*head >= 0)
	{
		destroy_shape(world, *head);
	}
}

void shape_touch_body(sn_world* world, int32_t owner)
{
	contact_state* c = &world->contacts;
	for (int32_t i = *body_head(world, owner); i >= 0; i = c->shapes[i].next_in_body)
	{
		shape* s = c->shapes + i;
		s->flags |= SHAPE_FIND_PAIRS;
		if (s->proxy != BROADPHASE_NULL_KEY)
		{
			broadphase_touch_proxy(&c->bp, s->proxy);
		}
	}
}

bool shape_body_has_static_geometry(const sn_world* world, int32_t owner)
{
	const contact_state* c = &world->contacts;
	for (int32_t i = world->bodies[owner].shape_head; i >= 0; i = c->shapes[i].next_in_body)
	{
		if (!collide_type_is_dynamic(c->shapes[i].geom.type))
		{
			return true;
		}
	}
	return false;
}

sn_error shape_retype_body(sn_world* world, int32_t owner, sn_body_type type)
{
	contact_state* c = &world->contacts;
	broadphase_type to = proxy_type_of(type, false);
	int count = 0;
	for (int32_t i = world->bodies[owner].shape_head; i >= 0; i = c->shapes[i].next_in_body)
	{
		count += c->shapes[i].proxy != BROADPHASE_NULL_KEY ? 1 : 0;
	}
	// Room first, so that moving the proxies cannot fail half way.
	if (broadphase_reserve(&c->bp, &world->memory, to, count) != SN_ERR_OK)
	{
		return SN_ERR_NO_MEMORY;
	}
	for (int32_t i = world->bodies[owner].shape_head; i >= 0; i = c->shapes[i].next_in_body)
	{
		shape* s = c->shapes + i;
		s->flags |= SHAPE_FIND_PAIRS;
		if (s->proxy == BROADPHASE_NULL_KEY || broadphase_key_type(s->proxy) == to)
		{
			continue;
		}
		int32_t key;
		sn_error err = broadphase_create_proxy_fat(&c->bp, &world->memory, broadphase_fat_aabb(&c->bp, s->proxy),
												   s->filter.category, i, to, true, &key);
		(void)err; // reserved above
		broadphase_destroy_proxy(&c->bp, s->proxy);
		s->proxy = key;
	}
	c->refilter = true; // pairs that are now of two static bodies end
	c->proxies_stale = true;
	return SN_ERR_OK;
}

void shape_release_all(sn_world* world)
{
	contact_state* c = &world->contacts;
	for (int i = 0; i < c->shape_high; ++i)
	{
		if (c->shapes[i].live)
		{
			shape_free_source(world, c->shapes[i].source);
		}
	}
	memory_free(&world->memory, c->shapes, (size_t)c->shape_capacity * sizeof(shape));
	memory_free(&world->memory, c->planes, (size_t)c->plane_capacity * sizeof(int32_t));
	c->shapes = NULL;
	c->planes = NULL;
}

bool sn_shape_is_valid(const sn_world* world, sn_shape_id id)
{
	return world != NULL && shape_get(world, id) != NULL;
}

// ---- getters and setters -------------------------------------------------------------------------------

#define SHAPE_GET_OR_(world, id, fallback)                                                                             \
	const shape* s = (world) != NULL ? shape_get(world, id) : NULL;                                                    \
	if (s == NULL)                                                                                                     \
		return fallback;

#define SHAPE_SET_OR_FAIL_(world, id, what)                                                                            \
	if ((world) == NULL)                                                                                               \
		return SN_ERR_INVALID_ARGUMENT;                                                                                \
	shape* s = shape_get(world, id);                                                                                   \
	if (s == NULL)                                                                                                     \
		return world_fail(world, SN_ERR_INVALID_ID, "%s: invalid shape id", what);

sn_shape_type sn_shape_get_type(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, SN_SHAPE_SPHERE);
	return (sn_shape_type)s->geom.type;
}

sn_body_id sn_shape_get_body(const sn_world* world, sn_shape_id id)
{
	sn_body_id none = { 0, 0 };
	SHAPE_GET_OR_(world, id, none);
	return body_id_of(world, s->body);
}

sn_transform sn_shape_get_local_pose(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, sn_transform_identity());
	return s->local;
}

sn_transform sn_shape_get_pose(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, sn_transform_identity());
	return shape_pose_now(world, s);
}

sn_error sn_shape_get_geometry(const sn_world* world, sn_shape_id id, sn_geometry* out)
{
	SHAPE_GET_OR_(world, id, SN_ERR_INVALID_ID);
	if (out == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const collide_shape* g = &s->geom;
	switch (g->type)
	{
		case COLLIDE_SPHERE:
			*out = sn_geometry_sphere(g->sphere.radius);
			break;
		case COLLIDE_CAPSULE:
			*out = sn_geometry_capsule(g->capsule.radius, g->capsule.half_length);
			break;
		case COLLIDE_BOX:
			*out = sn_geometry_box(g->box.half_extents);
			break;
		case COLLIDE_CYLINDER:
			*out = sn_geometry_cylinder(g->cylinder.radius, g->cylinder.half_height);
			break;
		case COLLIDE_HULL:
			*out = sn_geometry_hull(s->source->points, s->source->point_count);
			break;
		case COLLIDE_MESH:
		{
			const collide_mesh* m = s->source->mesh;
			*out = sn_geometry_mesh(m->vertices, m->vertex_count, &m->triangles[0].v[0], m->triangle_count);
			break;
		}
		default:
			*out = sn_geometry_plane(g->plane.normal, g->plane.offset);
			break;
	}
	return SN_ERR_OK;
}

int sn_shape_get_hull_vertices(const sn_world* world, sn_shape_id id, sn_vec3* vertices, int capacity)
{
	SHAPE_GET_OR_(world, id, 0);
	if (s->geom.type != COLLIDE_HULL)
	{
		return 0;
	}
	const collide_hull* h = s->geom.hull;
	for (int i = 0; i < h->vertex_count && i < capacity && vertices != NULL; ++i)
	{
		vertices[i] = h->vertices[i];
	}
	return h->vertex_count;
}

sn_error sn_shape_get_bounds(const sn_world* world, sn_shape_id id, sn_vec3* lower, sn_vec3* upper)
{
	SHAPE_GET_OR_(world, id, SN_ERR_INVALID_ID);
	collide_aabb box = collide_shape_aabb(&s->geom, shape_pose_now(world, s), 0.0);
	if (lower != NULL)
	{
		*lower = box.lower;
	}
	if (upper != NULL)
	{
		*upper = box.upper;
	}
	return SN_ERR_OK;
}

bool sn_shape_is_sensor(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, false);
	return s->sensor;
}

uint64_t sn_shape_get_user_data(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, 0);
	return s->user_data;
}

sn_error sn_shape_set_user_data(sn_world* world, sn_shape_id id, uint64_t user_data)
{
	SHAPE_SET_OR_FAIL_(world, id, "set shape user data");
	s->user_data = user_data;
	return SN_ERR_OK;
}

sn_material sn_shape_get_material(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, sn_default_material());
	return s->material;
}

sn_error sn_shape_set_material(sn_world* world, sn_shape_id id, sn_material material)
{
	SHAPE_SET_OR_FAIL_(world, id, "set shape material");
	sn_error err = shape_check_material(world, "set shape material", material);
	if (err == SN_ERR_OK)
	{
		s->material = material;
	}
	if (err == SN_ERR_OK)
	{
		island_wake_body(world, world->contacts.shapes[id.index1 - 1].body);
		island_wake_touching(world, world->contacts.shapes[id.index1 - 1].body);
	}
	return err;
}

sn_filter sn_shape_get_filter(const sn_world* world, sn_shape_id id)
{
	SHAPE_GET_OR_(world, id, sn_default_filter());
	return s->filter;
}

sn_error sn_shape_set_filter(sn_world* world, sn_shape_id id, sn_filter filter)
{
	SHAPE_SET_OR_FAIL_(world, id, "set shape filter");
	contact_state* c = &world->contacts;
	int32_t index = id.index1 - 1;
	if (s->proxy != BROADPHASE_NULL_KEY && filter.category != s->filter.category)
	{
		// The tree keeps categories for queries: the proxy is made again with the same fat box.
		int32_t key;
		broadphase_type type = broadphase_key_type(s->proxy);
		sn_error err = broadphase_create_proxy_fat(&c->bp, &world->memory, broadphase_fat_aabb(&c->bp, s->proxy),
												   filter.category, index, type, true, &key);
		if (err != SN_ERR_OK)
		{
			return world_fail(world, err, "set shape filter: out of memory for the broadphase proxy");
		}
		broadphase_destroy_proxy(&c->bp, s->proxy);
		s->proxy = key;
	}
	s->filter = filter;
	s->flags |= SHAPE_FIND_PAIRS;
	if (s->proxy != BROADPHASE_NULL_KEY)
	{
		broadphase_touch_proxy(&c->bp, s->proxy);
	}
	c->refilter = true;
	island_wake_body(world, world->contacts.shapes[id.index1 - 1].body);
	island_wake_touching(world, world->contacts.shapes[id.index1 - 1].body);
	return SN_ERR_OK;
}

int sn_body_get_shapes(const sn_world* world, sn_body_id owner, sn_shape_id* ids, int capacity)
{
	if (world == NULL)
	{
		return 0;
	}
	int32_t head;
	if (sn_body_id_is_null(owner))
	{
		head = world->contacts.world_shape_head;
	}
	else
	{
		const struct body* b = body_get(world, owner);
		if (b == NULL)
		{
			return 0;
		}
		head = b->shape_head;
	}
	int n = 0;
	for (int32_t i = head; i >= 0; i = world->contacts.shapes[i].next_in_body)
	{
		if (ids != NULL && n < capacity)
		{
			ids[n] = shape_id_of(world, i);
		}
		n += 1;
	}
	return n;
}

int sn_world_get_shapes(const sn_world* world, sn_shape_id* ids, int capacity)
{
	if (world == NULL)
	{
		return 0;
	}
	int n = 0;
	for (int i = 0; i < world->contacts.shape_high; ++i)
	{
		if (world->contacts.shapes[i].live)
		{
			if (ids != NULL && n < capacity)
			{
				ids[n] = shape_id_of(world, i);
			}
			n += 1;
		}
	}
	return n;
}

int sn_world_get_shape_count(const sn_world* world)
{
	return world != NULL ? world->contacts.shape_count : 0;
}

// ---- mass properties ------------------------------------------------------------------------------------

static sn_error check_density(sn_world* world, const char* what, double density)
{
	if (!isfinite(density))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: density must be finite", what);
	}
	if (!(density > 0.0))
	{
		return world_fail(world, density < 0.0 ? SN_ERR_NEGATIVE_VALUE : SN_ERR_INVALID_ARGUMENT,
						  "%s: density must be > 0 kg/m^3, got %g", what, density);
	}
	return SN_ERR_OK;
}

// A solid's mass properties in its own frame.
static sn_error solid_mass(sn_world* world, const char* what, const collide_shape* g, double density, collide_mass* out)
{
	if (!collide_type_is_convex(g->type))
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "%s: a %s has no inside and no mass", what,
						  collide_shape_type_name(g->type));
	}
	char detail[200];
	sn_error err = collide_mass_compute(g, density, out, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		return fail_detail(world, err, what, detail);
	}
	return SN_ERR_OK;
}

static sn_mass_properties placed_mass(collide_mass m, sn_transform pose)
{
	sn_mass_properties out;
	out.mass = m.mass;
	out.center_of_mass = sn_transform_point(pose, m.center);
	out.inertia = sn_mat33_rotate_tensor(pose.q, m.inertia);
	return out;
}

sn_error sn_shape_def_compute_mass(sn_world* world, const sn_shape_def* def, double density, sn_mass_properties* out)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "shape mass";
	if (def == NULL || out == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: def and out must not be NULL", what);
	}
	sn_transform local;
	sn_error err = check_density(world, what, density);
	if (err == SN_ERR_OK)
	{
		err = shape_check_local_pose(world, what, def->local_pose, &local);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (def->geometry.type == SN_SHAPE_MESH || def->geometry.type == SN_SHAPE_PLANE)
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "%s: a %s has no inside and no mass", what,
						  sn_shape_type_name(def->geometry.type));
	}
	collide_shape geom;
	shape_source* source = NULL;
	err = shape_build_geometry(world, what, &def->geometry, &geom, &source);
	collide_mass m;
	if (err == SN_ERR_OK)
	{
		err = solid_mass(world, what, &geom, density, &m);
	}
	shape_free_source(world, source);
	if (err == SN_ERR_OK)
	{
		*out = placed_mass(m, local);
	}
	return err;
}

sn_error sn_body_set_mass_from_shapes(sn_world* world, sn_body_id id, double density)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* what = "set mass from shapes";
	body* b = body_get(world, id);
	if (b == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "%s: invalid body id", what);
	}
	if (b->type == SN_BODY_LINK)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE, "%s: a link's mass is its articulation's (sn_link_def)", what);
	}
	sn_error err = check_density(world, what, density);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	// Combine part by part (the running compound and the next part), so no scratch is needed.
	contact_state* c = &world->contacts;
	collide_mass total;
	memset(&total, 0, sizeof(total));
	sn_transform identity = sn_transform_identity();
	int parts = 0;
	for (int32_t i = b->shape_head; i >= 0; i = c->shapes[i].next_in_body)
	{
		const shape* s = c->shapes + i;
		if (s->sensor || !collide_type_is_convex(s->geom.type))
		{
			continue;
		}
		collide_mass m;
		err = solid_mass(world, what, &s->geom, density, &m);
		if (err != SN_ERR_OK)
		{
			return err;
		}
		collide_mass pair[2] = { total, m };
		sn_transform poses[2] = { identity, s->local };
		total = collide_mass_combine(pair, poses, 2);
		parts += 1;
	}
	if (parts == 0)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: the body has no solid shape (sensors do not count)",
						  what);
	}
	return sn_body_set_mass_properties(world, id, total.mass, total.inertia, total.center);
}

// Snapshot sections SHAP (shapes, their broadphase boxes, exclusions) and CONT (the pair cache with its
// manifolds and warm starts), so that a restored world continues bit for bit: the same pairs, the same
// manifolds, the same warm starts, and the broadphase finding the same new pairs.
//
// SHAP. The shape pool slot by slot (generation, free-list link, liveness); for a live shape its body
// slot, its place in its body's list, the sensor flag, the pending pair search, the local pose, the source
// geometry (a hull's input points, a mesh's vertices and triangles as given), material, filter, user data,
// and its proxy: the tree and the fat box exactly, and whether it waits in the move buffer. Then the heads
// of the bodies' shape lists and the world's, the explicit exclusions and the dropped-event total.
//
// What is rebuilt. Hulls and meshes by the builders creation uses (hull_build and mesh_build are
// deterministic, so the same input gives the same hull, faces and feature ids), validated like creation;
// proxies are created with the written fat boxes (a tree of another layout, the same boxes: pair finding
// depends only on the boxes); the plane list, the world poses of the shapes (recomputed from the restored
// bodies) and the joint pairs of the filter. Every cached pair is checked against the filter again in the
// next step (a valid snapshot's all pass).
//
// CONT. Every cached pair (a stale one too: it ends in the next step with its end event, as in the
// original) with its shapes' slots and generations, bodies, flags and manifolds: normal and points with
// position, separation, feature id, warm-start impulses and the persisted mark.
#include "contact/contact.h"

#include "artic/artic.h"

#include "body.h"
#include "collide/hull.h"
#include "collide/narrowphase.h"
#include "collide/mesh.h"
#include "constraint/soft.h"
#include "snap_bytes.h"
#include "world.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum
{
	MAX_SHAPE_SLOTS = 1 << 26
};

static void put_transform(snap_writer* w, sn_transform t)
{
	snap_put_vec3(w, t.p);
	snap_put_quat(w, t.q);
}

static void put_aabb(snap_writer* w, collide_aabb b)
{
	snap_put_vec3(w, b.lower);
	snap_put_vec3(w, b.upper);
}

static void put_body_id(snap_writer* w, sn_body_id id)
{
	snap_put_u64(w, sn_body_id_store(id));
}

static void write_geometry(snap_writer* w, const shape* s)
{
	const collide_shape* g = &s->geom;
	snap_put_u32(w, (uint32_t)g->type);
	switch (g->type)
	{
		case COLLIDE_SPHERE:
			snap_put_f64(w, g->sphere.radius);
			break;
		case COLLIDE_CAPSULE:
			snap_put_f64(w, g->capsule.radius);
			snap_put_f64(w, g->capsule.half_length);
			break;
		case COLLIDE_BOX:
			snap_put_vec3(w, g->box.half_extents);
			break;
		case COLLIDE_CYLINDER:
			snap_put_f64(w, g->cylinder.radius);
			snap_put_f64(w, g->cylinder.half_height);
			break;
		case COLLIDE_PLANE:
			snap_put_vec3(w, g->plane.normal);
			snap_put_f64(w, g->plane.offset);
			break;
		case COLLIDE_HULL:
			snap_put_i32(w, s->source->point_count);
			for (int i = 0; i < s->source->point_count; ++i)
			{
				snap_put_vec3(w, s->source->points[i]);
			}
			break;
		case COLLIDE_MESH:
		{
			const collide_mesh* m = s->source->mesh;
			snap_put_i32(w, m->vertex_count);
			for (int i = 0; i < m->vertex_count; ++i)
			{
				snap_put_vec3(w, m->vertices[i]);
			}
			snap_put_i32(w, m->triangle_count);
			for (int t = 0; t < m->triangle_count; ++t)
			{
				for (int k = 0; k < 3; ++k)
				{
					snap_put_i32(w, m->triangles[t].v[k]);
				}
			}
			break;
		}
		default:
			break;
	}
}

void contact_snapshot_write_shapes(snap_writer* w, const sn_world* world)
{
	const contact_state* c = &world->contacts;
	snap_put_i32(w, c->shape_high);
	snap_put_i32(w, c->shape_free);
	for (int i = 0; i < c->shape_high; ++i)
	{
		const shape* s = c->shapes + i;
		snap_put_u32(w, s->generation);
		snap_put_i32(w, s->next_free);
		snap_put_u8(w, s->live ? 1 : 0);
		if (!s->live)
		{
			continue;
		}
		snap_put_i32(w, s->body);
		snap_put_i32(w, s->next_in_body);
		snap_put_u8(w, s->sensor ? 1 : 0);
		snap_put_u8(w, (uint8_t)(s->flags & SHAPE_FIND_PAIRS));
		put_transform(w, s->local);
		write_geometry(w, s);
		snap_put_f64(w, s->material.friction);
		snap_put_f64(w, s->material.restitution);
		snap_put_soft(w, s->material.soft);
		snap_put_u64(w, s->filter.category);
		snap_put_u64(w, s->filter.mask);
		snap_put_u64(w, s->user_data);
		if (s->proxy != BROADPHASE_NULL_KEY)
		{
			snap_put_u8(w, (uint8_t)broadphase_key_type(s->proxy));
			put_aabb(w, broadphase_fat_aabb(&c->bp, s->proxy));
			snap_put_u8(w, broadphase_proxy_moved(&c->bp, s->proxy) ? 1 : 0);
		}
	}
	// The lists' heads: the world's, then every body slot's.
	snap_put_i32(w, c->world_shape_head);
	snap_put_i32(w, world->body_high);
	for (int b = 0; b < world->body_high; ++b)
	{
		snap_put_i32(w, world->bodies[b].live ? world->bodies[b].shape_head : -1);
	}
	snap_put_i32(w, c->exclusion_count);
	for (int i = 0; i < c->exclusion_count; ++i)
	{
		snap_put_u64(w, c->exclusions[i]);
	}
	snap_put_u64(w, c->dropped_total);
}

void contact_snapshot_write_pairs(snap_writer* w, const sn_world* world)
{
	const contact_state* c = &world->contacts;
	snap_put_i32(w, c->pair_count);
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		snap_put_i32(w, p->shape_a);
		snap_put_i32(w, p->shape_b);
		snap_put_u32(w, p->generation_a);
		snap_put_u32(w, p->generation_b);
		put_body_id(w, p->body_a);
		put_body_id(w, p->body_b);
		snap_put_u32(w, p->flags);
		snap_put_i32(w, p->manifold_count);
		for (int m = 0; m < p->manifold_count; ++m)
		{
			const contact_manifold* cm = c->manifolds + p->first + m;
			snap_put_vec3(w, cm->normal);
			snap_put_i32(w, cm->point_count);
			for (int k = 0; k < cm->point_count; ++k)
			{
				const contact_point* cp = cm->points + k;
				snap_put_vec3(w, cp->position);
				snap_put_f64(w, cp->separation);
				snap_put_u64(w, cp->id);
				snap_put_f64(w, cp->normal_impulse);
				snap_put_f64(w, cp->tangent_impulse[0]);
				snap_put_f64(w, cp->tangent_impulse[1]);
				snap_put_u8(w, cp->persisted ? 1 : 0);
			}
		}
	}
}

// ---- reading ---------------------------------------------------------------------------------------------

static sn_error bad(sn_world* world, const char* what, int slot)
{
	return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: shape section: %s (slot %d)", what, slot);
}

static sn_transform get_transform(snap_reader* r)
{
	sn_transform t;
	t.p = snap_get_vec3(r);
	t.q = snap_get_quat(r);
	return t;
}

static collide_aabb get_aabb(snap_reader* r)
{
	collide_aabb b;
	b.lower = snap_get_vec3(r);
	b.upper = snap_get_vec3(r);
	return b;
}

// The geometry of one shape, read into a def's sn_geometry; hull points and mesh arrays go into scratch
// the caller frees (*scratch, *scratch_bytes).
static sn_error read_geometry(snap_reader* r, sn_world* world, int slot, sn_geometry* g, void** scratch,
							  size_t* scratch_bytes)
{
	*scratch = NULL;
	*scratch_bytes = 0;
	uint32_t type = snap_get_u32(r);
	switch (type)
	{
		case SN_SHAPE_SPHERE:
		{
			double radius = snap_get_f64(r);
			*g = sn_geometry_sphere(radius);
			break;
		}
		case SN_SHAPE_CAPSULE:
		{
			double radius = snap_get_f64(r);
			double half = snap_get_f64(r);
			*g = sn_geometry_capsule(radius, half);
			break;
		}
		case SN_SHAPE_BOX:
			*g = sn_geometry_box(snap_get_vec3(r));
			break;
		case SN_SHAPE_CYLINDER:
		{
			double radius = snap_get_f64(r);
			double half = snap_get_f64(r);
			*g = sn_geometry_cylinder(radius, half);
			break;
		}
		case SN_SHAPE_PLANE:
		{
			sn_vec3 n = snap_get_vec3(r);
			double offset = snap_get_f64(r);
			*g = sn_geometry_plane(n, offset);
			break;
		}
		case SN_SHAPE_HULL:
		{
			int32_t count = snap_get_i32(r);
			// 24 bytes a point must be there.
			if (!r->ok || count < 4 || count > SN_SHAPE_MAX_HULL_POINTS || (size_t)count > (r->size - r->at) / 24)
			{
				return bad(world, "hull point count", slot);
			}
			size_t bytes = (size_t)count * sizeof(sn_vec3);
			sn_vec3* points = memory_alloc(&world->memory, bytes);
			if (points == NULL)
			{
				return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for hull points");
			}
			for (int i = 0; i < count; ++i)
			{
				points[i] = snap_get_vec3(r);
			}
			*scratch = points;
			*scratch_bytes = bytes;
			*g = sn_geometry_hull(points, count);
			break;
		}
		case SN_SHAPE_MESH:
		{
			int32_t vertices = snap_get_i32(r);
			if (!r->ok || vertices < 3 || vertices > SN_SHAPE_MAX_MESH_VERTICES ||
				(size_t)vertices > (r->size - r->at) / 24)
			{
				return bad(world, "mesh vertex count", slot);
			}
			size_t vbytes = (size_t)vertices * sizeof(sn_vec3);
			size_t at_triangles = r->at + (size_t)vertices * 24;
			snap_reader peek = *r;
			peek.at = at_triangles;
			int32_t triangles = snap_get_i32(&peek);
			if (!peek.ok || triangles < 1 || triangles > SN_SHAPE_MAX_MESH_TRIANGLES ||
				(size_t)triangles > (peek.size - peek.at) / 12)
			{
				return bad(world, "mesh triangle count", slot);
			}
			size_t ibytes = (size_t)triangles * 3 * sizeof(int32_t);
			unsigned char* block = memory_alloc(&world->memory, vbytes + ibytes);
			if (block == NULL)
			{
				return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for a mesh");
			}
			sn_vec3* v = (sn_vec3*)block;
			int32_t* idx = (int32_t*)(block + vbytes);
			for (int i = 0; i < vertices; ++i)
			{
				v[i] = snap_get_vec3(r);
			}
			(void)snap_get_i32(r);
			for (int i = 0; i < 3 * triangles; ++i)
			{
				idx[i] = snap_get_i32(r);
			}
			*scratch = block;
			*scratch_bytes = vbytes + ibytes;
			*g = sn_geometry_mesh(v, vertices, idx, triangles);
			break;
		}
		default:
			return bad(world, "unknown shape type", slot);
	}
	return r->ok ? SN_ERR_OK : bad(world, "geometry truncated", slot);
}

static bool unit_quat(sn_quat q)
{
	return sn_quat_is_finite(q) && fabs(sn_quat_length(q) - 1.0) < 1e-9;
}

// One live shape into slot i of the pool (allocated by the caller).
static sn_error read_shape(snap_reader* r, sn_world* world, int i)
{
	contact_state* c = &world->contacts;
	shape* s = c->shapes + i;
	int32_t owner = snap_get_i32(r);
	int32_t next = snap_get_i32(r);
	uint8_t sensor = snap_get_u8(r);
	uint8_t flags = snap_get_u8(r);
	sn_transform local = get_transform(r);
	if (!r->ok || sensor > 1 || (flags & ~SHAPE_FIND_PAIRS) != 0)
	{
		return bad(world, "shape header", i);
	}
	if (owner < -1 || owner >= world->body_high || (owner >= 0 && !world->bodies[owner].live))
	{
		return bad(world, "shape on a missing body", i);
	}
	if (next < -1 || next >= c->shape_high)
	{
		return bad(world, "shape list link", i);
	}
	sn_transform unit;
	if (shape_check_local_pose(world, "snapshot: shape", local, &unit) != SN_ERR_OK || !unit_quat(local.q))
	{
		return bad(world, "local pose", i);
	}
	sn_geometry g;
	void* scratch;
	size_t scratch_bytes;
	sn_error err = read_geometry(r, world, i, &g, &scratch, &scratch_bytes);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_material material;
	material.friction = snap_get_f64(r);
	material.restitution = snap_get_f64(r);
	material.soft = snap_get_soft(r);
	sn_filter filter;
	filter.category = snap_get_u64(r);
	filter.mask = snap_get_u64(r);
	uint64_t user_data = snap_get_u64(r);
	bool is_plane = g.type == SN_SHAPE_PLANE;
	uint8_t tree = 0, moved = 0;
	collide_aabb fat = { { 0, 0, 0 }, { 0, 0, 0 } };
	if (!is_plane)
	{
		tree = snap_get_u8(r);
		fat = get_aabb(r);
		moved = snap_get_u8(r);
	}
	if (!r->ok || tree >= BROADPHASE_TYPE_COUNT || moved > 1)
	{
		memory_free(&world->memory, scratch, scratch_bytes);
		return bad(world, "shape record truncated", i);
	}
	collide_shape geom;
	shape_source* source = NULL;
	err = shape_build_geometry(world, "snapshot: shape", &g, &geom, &source);
	memory_free(&world->memory, scratch, scratch_bytes);
	if (err != SN_ERR_OK)
	{
		return err == SN_ERR_NO_MEMORY ? err : SN_ERR_BAD_SNAPSHOT; // keep the builder's detail line
	}
	// The geometry as written: a plane's normal was unit already (the builder normalises again).
	if (is_plane && !(fabs(sn_length(g.plane.normal) - 1.0) < 1e-12))
	{
		shape_free_source(world, source);
		return bad(world, "plane normal", i);
	}
	if (is_plane)
	{
		geom.plane.normal = g.plane.normal;
	}
	sn_body_type body_type = owner >= 0 ? world->bodies[owner].type : SN_BODY_STATIC;
	broadphase_type expected = (owner < 0 || body_type == SN_BODY_STATIC) ? BROADPHASE_STATIC
		: body_type == SN_BODY_KINEMATIC                                  ? BROADPHASE_KINEMATIC
																		  : BROADPHASE_DYNAMIC;
	if (shape_check_material(world, "snapshot: shape", material) != SN_ERR_OK ||
		((g.type == SN_SHAPE_MESH || is_plane) && expected != BROADPHASE_STATIC) ||
		(!is_plane && ((broadphase_type)tree != expected || !aabb_is_valid(fat))))
	{
		shape_free_source(world, source);
		return bad(world, "material, placement or broadphase box", i);
	}
	s->live = true;
	s->sensor = sensor == 1;
	s->flags = flags;
	s->body = owner;
	s->next_in_body = next;
	s->proxy = BROADPHASE_NULL_KEY;
	s->local = local;
	s->geom = geom;
	s->source = source;
	s->reach = shape_reach(&geom);
	s->material = material;
	s->filter = filter;
	s->user_data = user_data;
	c->shape_count += 1;
	if (!is_plane)
	{
		err = broadphase_create_proxy_fat(&c->bp, &world->memory, fat, filter.category, i, (broadphase_type)tree,
										  moved == 1, &s->proxy);
		if (err != SN_ERR_OK)
		{
			return world_fail(world, err, "snapshot: out of memory for the broadphase");
		}
	}
	return SN_ERR_OK;
}

// Every shape list: from its head through live shapes of that body only, each live shape exactly once.
static bool lists_valid(sn_world* world)
{
	contact_state* c = &world->contacts;
	int seen = 0;
	for (int b = -1; b < world->body_high; ++b)
	{
		int32_t head = b < 0 ? c->world_shape_head : world->bodies[b].shape_head;
		int steps = 0;
		for (int32_t at = head; at != -1; at = c->shapes[at].next_in_body)
		{
			if (at < 0 || at >= c->shape_high || !c->shapes[at].live || c->shapes[at].body != b ||
				steps++ > c->shape_count)
			{
				return false;
			}
			seen += 1;
		}
	}
	return seen == c->shape_count;
}

sn_error contact_snapshot_read_shapes(snap_reader* r, sn_world* world)
{
	contact_state* c = &world->contacts;
	int32_t high = snap_get_i32(r);
	int32_t free_head = snap_get_i32(r);
	if (!r->ok || high < 0 || high > MAX_SHAPE_SLOTS || (size_t)high > r->size)
	{
		return bad(world, "shape pool size", -1);
	}
	void* p = c->shapes;
	if (high > 0 && !memory_reserve(&world->memory, &p, &c->shape_capacity, high, sizeof(shape)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d shapes", high);
	}
	c->shapes = p;
	c->shape_free = free_head;
	for (int i = 0; i < high; ++i)
	{
		shape* s = c->shapes + i;
		memset(s, 0, sizeof(*s));
		s->proxy = BROADPHASE_NULL_KEY;
		c->shape_high = i + 1; // slots so far are released with the world on failure
		s->generation = snap_get_u32(r);
		s->next_free = snap_get_i32(r);
		uint8_t live = snap_get_u8(r);
		if (!r->ok || live > 1 || s->generation == 0)
		{
			return bad(world, "shape slot header", i);
		}
		if (live == 1)
		{
			c->shape_high = high; // list links may point ahead
			sn_error err = read_shape(r, world, i);
			c->shape_high = i + 1;
			if (err != SN_ERR_OK)
			{
				return err;
			}
		}
	}
	c->shape_high = high;
	// Links' shapes: their articulations' rows get room for contacts (as sn_create_shape gives them).
	for (int i = 0; i < high; ++i)
	{
		const shape* s = c->shapes + i;
		if (s->live && s->body >= 0 && world->bodies[s->body].type == SN_BODY_LINK)
		{
			world->artics->items[world->bodies[s->body].artic].shape_count += 1;
		}
	}
	for (int i = 0; world->artics != NULL && i < world->artics->high; ++i)
	{
		artic* a = world->artics->items + i;
		if (a->live && a->shape_count > 0)
		{
			sn_error err = artic_reserve_rows(world, a, NULL);
			if (err != SN_ERR_OK)
			{
				return err;
			}
		}
	}
	c->world_shape_head = snap_get_i32(r);
	int32_t bodies = snap_get_i32(r);
	if (!r->ok || bodies != world->body_high)
	{
		return bad(world, "shape lists", -1);
	}
	for (int b = 0; b < bodies; ++b)
	{
		int32_t head = snap_get_i32(r);
		if (!r->ok || head < -1 || head >= high || (head >= 0 && !world->bodies[b].live))
		{
			return bad(world, "shape list head", b);
		}
		if (world->bodies[b].live)
		{
			world->bodies[b].shape_head = head;
		}
	}
	if (c->world_shape_head < -1 || c->world_shape_head >= high || !lists_valid(world))
	{
		return bad(world, "shape lists", -1);
	}
	// Free list: exactly the dead slots.
	size_t bytes = (size_t)(high > 0 ? high : 1) * (sizeof(int32_t) + sizeof(bool));
	void* scratch = memory_alloc(&world->memory, bytes);
	if (scratch == NULL)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory");
	}
	int32_t* next = scratch;
	bool* live = (bool*)(next + (high > 0 ? high : 1));
	for (int i = 0; i < high; ++i)
	{
		next[i] = c->shapes[i].next_free;
		live[i] = c->shapes[i].live;
	}
	bool ok = snap_free_list_valid(free_head, next, live, high);
	memory_free(&world->memory, scratch, bytes);
	if (!ok)
	{
		return bad(world, "shape free list", -1);
	}
	// Exclusions: sorted, distinct, of live bodies (or the world), not a body with itself.
	int32_t exclusions = snap_get_i32(r);
	if (!r->ok || exclusions < 0 || (size_t)exclusions > (r->size - r->at) / 8)
	{
		return bad(world, "exclusion count", -1);
	}
	p = c->exclusions;
	if (exclusions > 0 && !memory_reserve(&world->memory, &p, &c->exclusion_capacity, exclusions, sizeof(uint64_t)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for exclusions");
	}
	c->exclusions = p;
	for (int i = 0; i < exclusions; ++i)
	{
		uint64_t key = snap_get_u64(r);
		uint32_t x = (uint32_t)(key >> 32), y = (uint32_t)key;
		bool x_ok = x == 0 || (x <= (uint32_t)world->body_high && world->bodies[x - 1].live);
		bool y_ok = y == 0 || (y <= (uint32_t)world->body_high && world->bodies[y - 1].live);
		if (!r->ok || !(x < y) || !x_ok || !y_ok || (i > 0 && !(c->exclusions[i - 1] < key)))
		{
			return bad(world, "exclusion", i);
		}
		c->exclusions[i] = key;
		c->exclusion_count = i + 1;
	}
	c->dropped_total = snap_get_u64(r);
	if (!r->ok)
	{
		return bad(world, "section truncated", -1);
	}
	// Derived: the plane list, world poses, the joint filter, a filter pass over the restored pairs.
	int planes = 0;
	for (int i = 0; i < high; ++i)
	{
		planes += c->shapes[i].live && c->shapes[i].geom.type == COLLIDE_PLANE ? 1 : 0;
	}
	p = c->planes;
	if (planes > 0 && !memory_reserve(&world->memory, &p, &c->plane_capacity, planes, sizeof(int32_t)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for planes");
	}
	c->planes = p;
	for (int i = 0; i < high; ++i)
	{
		shape* s = c->shapes + i;
		if (!s->live)
		{
			continue;
		}
		if (s->geom.type == COLLIDE_PLANE)
		{
			c->planes[c->plane_count++] = i;
		}
		contact_place_shape(world, s, i, world->def.time_step, NULL, NULL);
	}
	// Static bodies posed by a setter since the original's last step are not marked in the snapshot: the
	// first update places every static body's shapes again (those that did not move stay inside their
	// boxes, so nothing changes for them).
	for (int b = 0; b < world->body_high; ++b)
	{
		world->bodies[b].moved = world->bodies[b].live && world->bodies[b].type == SN_BODY_STATIC;
	}
	c->joint_pairs_dirty = true;
	c->refilter = true;
	c->proxies_stale = true;
	return SN_ERR_OK;
}

sn_error contact_snapshot_read_pairs(snap_reader* r, sn_world* world)
{
	contact_state* c = &world->contacts;
	int32_t count = snap_get_i32(r);
	// A pair takes at least 44 bytes.
	if (!r->ok || count < 0 || (size_t)count > (r->size - r->at) / 44)
	{
		return bad(world, "pair count", -1);
	}
	void* p = c->pairs;
	if (count > 0 && !memory_reserve(&world->memory, &p, &c->pair_capacity, count, sizeof(contact_pair)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d pairs", count);
	}
	c->pairs = p;
	int manifolds = 0;
	uint64_t last_key = 0;
	for (int i = 0; i < count; ++i)
	{
		contact_pair* q = c->pairs + i;
		memset(q, 0, sizeof(*q));
		q->shape_a = snap_get_i32(r);
		q->shape_b = snap_get_i32(r);
		q->generation_a = snap_get_u32(r);
		q->generation_b = snap_get_u32(r);
		q->body_a = sn_body_id_load(snap_get_u64(r));
		q->body_b = sn_body_id_load(snap_get_u64(r));
		q->flags = snap_get_u32(r);
		q->manifold_count = snap_get_i32(r);
		uint64_t key = contact_pair_key(q->shape_a, q->shape_b);
		if (!r->ok || q->shape_a < 0 || q->shape_b <= q->shape_a || q->shape_b >= c->shape_high ||
			(i > 0 && !(last_key < key)) || (q->flags & ~(uint32_t)(PAIR_TOUCHING | PAIR_SENSOR)) != 0 ||
			q->manifold_count < 0 || q->manifold_count > COLLIDE_MAX_MANIFOLDS ||
			((q->flags & PAIR_SENSOR) && q->manifold_count > 0))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: contact section: pair %d is malformed", i);
		}
		last_key = key;
		c->pair_count = i + 1;
		if (contact_pair_is_current(world->contacts.shapes, q))
		{
			// A pair of live shapes names their bodies and their kind.
			const shape* a = c->shapes + q->shape_a;
			const shape* b = c->shapes + q->shape_b;
			bool sensor = a->sensor || b->sensor;
			if (!sn_body_id_equals(q->body_a, body_id_of(world, a->body)) ||
				!sn_body_id_equals(q->body_b, body_id_of(world, b->body)) || sensor != ((q->flags & PAIR_SENSOR) != 0))
			{
				return world_fail(world, SN_ERR_BAD_SNAPSHOT,
								  "snapshot: contact section: pair %d does not match its shapes", i);
			}
		}
		q->first = manifolds;
		p = c->manifolds;
		if (q->manifold_count > 0 &&
			!memory_reserve(&world->memory, &p, &c->manifold_capacity, manifolds + q->manifold_count,
							sizeof(contact_manifold)))
		{
			return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for manifolds");
		}
		c->manifolds = p;
		for (int m = 0; m < q->manifold_count; ++m)
		{
			contact_manifold* cm = c->manifolds + manifolds + m;
			memset(cm, 0, sizeof(*cm));
			cm->normal = snap_get_vec3(r);
			cm->point_count = snap_get_i32(r);
			bool ok = r->ok && sn_vec3_is_finite(cm->normal) && fabs(sn_length(cm->normal) - 1.0) < 1e-9 &&
				cm->point_count >= 1 && cm->point_count <= COLLIDE_MANIFOLD_POINTS;
			for (int k = 0; ok && k < cm->point_count; ++k)
			{
				contact_point* cp = cm->points + k;
				cp->position = snap_get_vec3(r);
				cp->separation = snap_get_f64(r);
				cp->id = snap_get_u64(r);
				cp->normal_impulse = snap_get_f64(r);
				cp->tangent_impulse[0] = snap_get_f64(r);
				cp->tangent_impulse[1] = snap_get_f64(r);
				uint8_t persisted = snap_get_u8(r);
				cp->persisted = persisted == 1;
				ok = r->ok && persisted <= 1 && sn_vec3_is_finite(cp->position) && isfinite(cp->separation) &&
					isfinite(cp->normal_impulse) && isfinite(cp->tangent_impulse[0]) &&
					isfinite(cp->tangent_impulse[1]);
			}
			if (!ok)
			{
				return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: contact section: manifold of pair %d", i);
			}
		}
		manifolds += q->manifold_count;
		c->manifold_count = manifolds;
	}
	return SN_ERR_OK;
}

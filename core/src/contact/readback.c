// Contacts, events and statistics of the last step through the public API (getters that fill the
// caller's arrays), and the contacts' share of the world's state hash.
#include "contact/contact.h"

#include "body.h"
#include "hash.h"
#include "math/mathx.h"
#include "world.h"

#include <string.h>

static void fill_contact(const sn_world* world, const contact_pair* p, const contact_manifold* m, sn_contact* out)
{
	memset(out, 0, sizeof(*out));
	out->shape_a = shape_id_of(world, p->shape_a);
	out->shape_b = shape_id_of(world, p->shape_b);
	out->body_a = p->body_a;
	out->body_b = p->body_b;
	out->normal = m->normal;
	vec3_plane_basis(m->normal, out->tangent, out->tangent + 1); // as the contact solver takes them
	out->touching = (p->flags & PAIR_TOUCHING) != 0;
	const double inv_dt = 1.0 / world->def.time_step;
	out->point_count = m->point_count;
	for (int k = 0; k < m->point_count; ++k)
	{
		const contact_point* cp = m->points + k;
		sn_contact_point* op = out->points + k;
		op->position = cp->position;
		op->separation = cp->separation;
		op->feature_id = cp->id;
		op->normal_impulse = cp->normal_impulse;
		op->tangent_impulse[0] = cp->tangent_impulse[0];
		op->tangent_impulse[1] = cp->tangent_impulse[1];
		op->normal_force = cp->normal_impulse * inv_dt;
		sn_vec3 f = sn_scale(cp->normal_impulse, m->normal);
		f = sn_mul_add(f, cp->tangent_impulse[0], out->tangent[0]);
		f = sn_mul_add(f, cp->tangent_impulse[1], out->tangent[1]);
		op->force = sn_scale(inv_dt, f);
		op->persisted = cp->persisted;
	}
}

// What a readback selects: every pair, the pairs of one body (either side), of one shape, or of two shapes.
typedef struct selection
{
	int kind; // 0 all, 1 body, 2 shape, 3 pair
	sn_body_id owner;
	int32_t slot;
	int32_t other;
} selection;

static bool selected(const contact_pair* p, const selection* s)
{
	switch (s->kind)
	{
		case 1:
			return sn_body_id_equals(p->body_a, s->owner) || sn_body_id_equals(p->body_b, s->owner);
		case 2:
			return p->shape_a == s->slot || p->shape_b == s->slot;
		case 3:
			return p->shape_a == s->slot && p->shape_b == s->other;
		default:
			return true;
	}
}

static int read_contacts(const sn_world* world, const selection* sel, sn_contact* out, int capacity)
{
	const contact_state* c = &world->contacts;
	int n = 0;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (p->manifold_count == 0 || !selected(p, sel) || !contact_pair_is_current(world->contacts.shapes, p))
		{
			continue;
		}
		for (int m = 0; m < p->manifold_count; ++m)
		{
			if (out != NULL && n < capacity)
			{
				fill_contact(world, p, c->manifolds + p->first + m, out + n);
			}
			n += 1;
		}
	}
	return n;
}

int sn_world_get_contacts(const sn_world* world, sn_contact* contacts, int capacity)
{
	if (world == NULL)
	{
		return 0;
	}
	selection sel = { 0, { 0, 0 }, -1, -1 };
	return read_contacts(world, &sel, contacts, capacity);
}

int sn_body_get_contacts(const sn_world* world, sn_body_id owner, sn_contact* contacts, int capacity)
{
	if (world == NULL || body_get(world, owner) == NULL)
	{
		return 0;
	}
	selection sel = { 1, owner, -1, -1 };
	return read_contacts(world, &sel, contacts, capacity);
}

int sn_shape_get_contacts(const sn_world* world, sn_shape_id id, sn_contact* contacts, int capacity)
{
	if (world == NULL || shape_get(world, id) == NULL)
	{
		return 0;
	}
	selection sel = { 2, { 0, 0 }, id.index1 - 1, -1 };
	return read_contacts(world, &sel, contacts, capacity);
}

int sn_shape_pair_get_contacts(const sn_world* world, sn_shape_id a, sn_shape_id b, sn_contact* contacts, int capacity)
{
	if (world == NULL || shape_get(world, a) == NULL || shape_get(world, b) == NULL)
	{
		return 0;
	}
	int32_t x = a.index1 - 1, y = b.index1 - 1;
	selection sel = { 3, { 0, 0 }, x < y ? x : y, x < y ? y : x };
	// The cache is sorted by key: find the pair by bisection.
	const contact_state* c = &world->contacts;
	uint64_t key = contact_pair_key(sel.slot, sel.other);
	int lo = 0, hi = c->pair_count;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (contact_pair_key(c->pairs[mid].shape_a, c->pairs[mid].shape_b) < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	int n = 0;
	for (int i = lo; i < c->pair_count && contact_pair_key(c->pairs[i].shape_a, c->pairs[i].shape_b) == key; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (!contact_pair_is_current(world->contacts.shapes, p))
		{
			continue;
		}
		for (int m = 0; m < p->manifold_count; ++m)
		{
			if (contacts != NULL && n < capacity)
			{
				fill_contact(world, p, c->manifolds + p->first + m, contacts + n);
			}
			n += 1;
		}
	}
	return n;
}

sn_collision_stats sn_world_get_collision_stats(const sn_world* world)
{
	sn_collision_stats s;
	memset(&s, 0, sizeof(s));
	if (world != NULL)
	{
		s = world->contacts.stats;
		s.shapes = world->contacts.shape_count;
	}
	return s;
}

sn_contact_events sn_world_get_contact_events(const sn_world* world)
{
	sn_contact_events e;
	memset(&e, 0, sizeof(e));
	if (world == NULL)
	{
		return e;
	}
	const contact_state* c = &world->contacts;
	e.begin = c->begin_events;
	e.begin_count = c->begin_count;
	e.end = c->end_events;
	e.end_count = c->end_count;
	e.sensor_begin = c->sensor_begin_events;
	e.sensor_begin_count = c->sensor_begin_count;
	e.sensor_end = c->sensor_end_events;
	e.sensor_end_count = c->sensor_end_count;
	e.dropped = c->dropped;
	e.dropped_total = c->dropped_total;
	return e;
}

// The pairs with contact points (the ones whose existence does not depend on the broadphase's history,
// contact/update.c), their touching flags, manifolds and warm starts. Worlds with none hash nothing here.
uint64_t contact_state_hash(const sn_world* world, uint64_t h)
{
	const contact_state* c = &world->contacts;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (p->manifold_count == 0 && !((p->flags & PAIR_SENSOR) && (p->flags & PAIR_TOUCHING)))
		{
			continue;
		}
		h = hash_bytes(h, &p->shape_a, sizeof(p->shape_a));
		h = hash_bytes(h, &p->shape_b, sizeof(p->shape_b));
		h = hash_bytes(h, &p->flags, sizeof(p->flags));
		for (int m = 0; m < p->manifold_count; ++m)
		{
			const contact_manifold* cm = c->manifolds + p->first + m;
			h = hash_doubles(h, &cm->normal.x, 3);
			for (int k = 0; k < cm->point_count; ++k)
			{
				const contact_point* cp = cm->points + k;
				h = hash_doubles(h, &cp->position.x, 3);
				h = hash_doubles(h, &cp->separation, 1);
				h = hash_bytes(h, &cp->id, sizeof(cp->id));
				h = hash_doubles(h, &cp->normal_impulse, 1);
				h = hash_doubles(h, cp->tangent_impulse, 2);
			}
		}
	}
	return h;
}

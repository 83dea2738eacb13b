// Islands and sleeping (Box2D's and PhysX's scheme, built again each step over what is awake).
//
// Nodes are the dynamic bodies (by slot) and the articulations (after the body slots; a link stands for
// its articulation). Two nodes are in one island when a touching, non-sensor contact pair or an enabled
// joint joins them: a union-find over the step's pairs and joints, whose roots are the smallest node index
// of each island (so the grouping depends on slots, never on addresses). Static bodies, the world and
// kinematic bodies join nothing: they are the ground an island rests on; a kinematic body that moves keeps
// every island it touches awake.
//
// A member rests when its centre of mass moves slower than linear_speed and it turns slower than
// angular_speed (an articulation: its base and every joint speed); its sleep timer counts the time it has
// rested without a break. An island whose every timer has reached time_to_sleep falls asleep: its members'
// velocities are zeroed, and they keep the island's root as their sleep group. A sleeping body takes no
// solver slot (the solvers see it as ground: nothing awake touches it, or it would be awake too), its shapes
// do not move, its pairs with other sleeping or static shapes keep their manifolds without a narrowphase,
// and a sleeping articulation is not solved. What wakes a group: a setter, force or drive target on a
// member, a contact that begins or ends with a member (the collision stage's events), a moving kinematic
// body touching it, or sn_body_wake and sn_articulation_wake.
//
// Awake islands never meet sleeping ones within a step (a contact between them wakes the sleeper before
// the solve), and every solver works island by island in effect (nothing couples two islands), so sleeping
// changes nothing of what the awake islands do.
#include "island.h"

#include "artic/artic.h"
#include "body.h"
#include "contact/contact.h"
#include "world.h"

#include "sinew/articulation.h"
#include "sinew/body.h"

#include <math.h>
#include <string.h>

bool island_reserve(sn_world* world)
{
	int nodes = world->body_high + (world->artics != NULL ? world->artics->high : 0);
	if (nodes <= world->islands.capacity)
	{
		return true;
	}
	int grown = nodes + nodes / 2 + 16;
	size_t bytes = (size_t)grown * (sizeof(int32_t) + sizeof(double) + sizeof(uint8_t));
	void* block = memory_alloc(&world->memory, bytes);
	if (block == NULL)
	{
		return false;
	}
	island_release(world);
	// Doubles first, so that every array is aligned for its type.
	world->islands.rest = block;
	world->islands.parent = (int32_t*)(world->islands.rest + grown);
	world->islands.keep = (uint8_t*)(world->islands.parent + grown);
	world->islands.capacity = grown;
	return true;
}

void island_release(sn_world* world)
{
	if (world->islands.rest != NULL)
	{
		size_t bytes = (size_t)world->islands.capacity * (sizeof(int32_t) + sizeof(double) + sizeof(uint8_t));
		memory_free(&world->memory, world->islands.rest, bytes);
	}
	memset(&world->islands, 0, sizeof(world->islands));
}

// ---- waking -----------------------------------------------------------------------------------------------

static void wake_group(sn_world* world, int32_t group)
{
	for (int i = 0; i < world->body_high; ++i)
	{
		body* b = world->bodies + i;
		if (b->live && b->asleep && b->sleep_group == group)
		{
			b->asleep = false;
			b->sleep_time = 0.0;
			b->sleep_group = -1;
		}
	}
	artic_store* s = world->artics;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (a->live && a->asleep && a->sleep_group == group)
		{
			a->asleep = false;
			a->sleep_time = 0.0;
			a->sleep_group = -1;
		}
	}
}

void island_wake_artic(sn_world* world, int32_t artic_slot)
{
	if (world->artics == NULL || artic_slot < 0)
	{
		return;
	}
	artic* a = world->artics->items + artic_slot;
	if (a->live && a->asleep)
	{
		wake_group(world, a->sleep_group);
	}
	a->sleep_time = 0.0;
}

void island_wake_body(sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return;
	}
	body* b = world->bodies + body_slot;
	if (b->type == SN_BODY_LINK)
	{
		island_wake_artic(world, b->artic);
		return;
	}
	if (b->asleep)
	{
		wake_group(world, b->sleep_group);
	}
	b->sleep_time = 0.0;
}

void island_wake_touching(sn_world* world, int32_t body_slot)
{
	const contact_state* c = &world->contacts;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (!contact_pair_is_current(c->shapes, p))
		{
			continue;
		}
		int32_t a = c->shapes[p->shape_a].body, b = c->shapes[p->shape_b].body;
		if (a == body_slot || b == body_slot)
		{
			island_wake_body(world, a == body_slot ? b : a);
		}
	}
}

void island_wake_all(sn_world* world)
{
	for (int i = 0; i < world->body_high; ++i)
	{
		body* b = world->bodies + i;
		b->asleep = false;
		b->sleep_time = 0.0;
		b->sleep_group = -1;
	}
	artic_store* s = world->artics;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		s->items[i].asleep = false;
		s->items[i].sleep_time = 0.0;
		s->items[i].sleep_group = -1;
	}
}

bool island_body_asleep(const sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return false;
	}
	const body* b = world->bodies + body_slot;
	return b->type == SN_BODY_LINK ? world->artics->items[b->artic].asleep : b->asleep;
}

bool island_body_moves(const sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return false;
	}
	const body* b = world->bodies + body_slot;
	if (b->type == SN_BODY_LINK)
	{
		// The base of a fixed articulation is welded to the world: it never moves.
		const artic* a = world->artics->items + b->artic;
		return !a->asleep && !(a->fixed_base && b->link == 0);
	}
	return b->type == SN_BODY_DYNAMIC && !b->asleep;
}

static bool kinematic_moving(const sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return false;
	}
	const body* b = world->bodies + body_slot;
	return b->type == SN_BODY_KINEMATIC && (sn_length_sq(b->v) > 0.0 || sn_length_sq(b->w) > 0.0);
}

void island_wake_touched(sn_world* world)
{
	const contact_state* c = &world->contacts;
	// Pairs that began or stopped touching: their sleepers wake (something came, or their support went).
	for (int i = 0; i < c->begin_count; ++i)
	{
		island_wake_body(world, c->begin_events[i].body_a.index1 - 1);
		island_wake_body(world, c->begin_events[i].body_b.index1 - 1);
	}
	for (int i = 0; i < c->end_count; ++i)
	{
		const sn_contact_event* e = c->end_events + i;
		// The ids of a pair that ended because a body went may be stale: wake only live bodies.
		if (e->body_a.index1 > 0 && body_get(world, e->body_a) != NULL)
		{
			island_wake_body(world, e->body_a.index1 - 1);
		}
		if (e->body_b.index1 > 0 && body_get(world, e->body_b) != NULL)
		{
			island_wake_body(world, e->body_b.index1 - 1);
		}
	}
	// A moving kinematic body wakes what it touches.
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (!(p->flags & PAIR_TOUCHING) || (p->flags & PAIR_SENSOR))
		{
			continue;
		}
		int32_t a = c->shapes[p->shape_a].body, b = c->shapes[p->shape_b].body;
		if (kinematic_moving(world, a) && island_body_asleep(world, b))
		{
			island_wake_body(world, b);
		}
		if (kinematic_moving(world, b) && island_body_asleep(world, a))
		{
			island_wake_body(world, a);
		}
	}
}

// ---- the island pass ----------------------------------------------------------------------------------

// The node of a body slot: the body (dynamic), its articulation (a link), or -1.
static int32_t node_of(const sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return -1;
	}
	const body* b = world->bodies + body_slot;
	if (b->type == SN_BODY_LINK)
	{
		return world->body_high + b->artic;
	}
	return b->type == SN_BODY_DYNAMIC ? body_slot : -1;
}

static int32_t find(int32_t* parent, int32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void unite(int32_t* parent, int32_t a, int32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a < b)
	{
		parent[b] = a;
	}
	else if (b < a)
	{
		parent[a] = b;
	}
}

static bool artic_rests(const artic* a, const sn_sleep_settings* s)
{
	if (!a->fixed_base && (sn_length(a->base_v) >= s->linear_speed || sn_length(a->base_w) >= s->angular_speed))
	{
		return false;
	}
	for (int d = 0; d < a->dof_count; ++d)
	{
		const artic_link* l = a->links + a->dof_link[d];
		double limit = l->type == SN_LINK_JOINT_PRISMATIC ? s->linear_speed : s->angular_speed;
		if (!(fabs(a->qd[d]) < limit))
		{
			return false;
		}
	}
	return true;
}

static void put_to_sleep_body(body* b, int32_t group)
{
	b->asleep = true;
	b->sleep_group = group;
	b->v = sn_v3(0, 0, 0);
	b->w = sn_v3(0, 0, 0);
}

static void put_to_sleep_artic(artic* a, int32_t group)
{
	a->asleep = true;
	a->sleep_group = group;
	a->base_v = sn_v3(0, 0, 0);
	a->base_w = sn_v3(0, 0, 0);
	memset(a->qd, 0, (size_t)a->dof_count * sizeof(double));
	a->free_history = ARTIC_FREE_NONE;
}

void island_update(sn_world* world, double dt)
{
	const sn_sleep_settings* set = &world->def.sleep;
	if (!set->enabled)
	{
		return;
	}
	artic_store* arts = world->artics;
	const int bodies = world->body_high;
	const int nodes = bodies + (arts != NULL ? arts->high : 0);
	int32_t* parent = world->islands.parent;
	double* rest = world->islands.rest;
	uint8_t* keep = world->islands.keep;
	// Timers, and every awake node its own island. Without free bodies no body slot is dynamic (the links'
	// bodies are the articulations' nodes): their records are not read, which a world of articulations
	// alone would otherwise pull into the cache each step for nothing.
	const bool free_bodies = world->body_count > 0;
	int awake = 0;
	for (int i = 0; i < nodes; ++i)
	{
		parent[i] = i;
		keep[i] = 0;
		rest[i] = INFINITY;
		if (i < bodies)
		{
			if (!free_bodies)
			{
				continue;
			}
			body* b = world->bodies + i;
			if (!b->live || b->type != SN_BODY_DYNAMIC || b->asleep)
			{
				continue;
			}
			bool rests = sn_length(b->v) < set->linear_speed && sn_length(b->w) < set->angular_speed;
			b->sleep_time = rests ? b->sleep_time + dt : 0.0;
			rest[i] = b->sleep_time;
		}
		else
		{
			artic* a = arts->items + (i - bodies);
			if (!a->live || a->asleep)
			{
				continue;
			}
			a->sleep_time = artic_rests(a, set) ? a->sleep_time + dt : 0.0;
			rest[i] = a->sleep_time;
		}
		awake += 1;
	}
	if (awake == 0)
	{
		return;
	}
	// Islands: touching contacts and joints between awake nodes.
	const contact_state* c = &world->contacts;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (!(p->flags & PAIR_TOUCHING) || (p->flags & PAIR_SENSOR) || !contact_pair_is_current(c->shapes, p))
		{
			continue;
		}
		int32_t ba = c->shapes[p->shape_a].body, bb = c->shapes[p->shape_b].body;
		int32_t na = node_of(world, ba), nb = node_of(world, bb);
		if (na >= 0 && nb >= 0 && rest[na] != INFINITY && rest[nb] != INFINITY)
		{
			unite(parent, na, nb);
		}
		if (nb >= 0 && kinematic_moving(world, ba))
		{
			keep[nb] = 1;
		}
		if (na >= 0 && kinematic_moving(world, bb))
		{
			keep[na] = 1;
		}
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (!j->live || !j->enabled || j->broken)
		{
			continue;
		}
		int32_t na = node_of(world, j->body_a), nb = node_of(world, j->body_b);
		if (na >= 0 && nb >= 0 && rest[na] != INFINITY && rest[nb] != INFINITY)
		{
			unite(parent, na, nb);
		}
	}
	// The least rest time of each island, at its root (a kept node counts as moving).
	for (int i = 0; i < nodes; ++i)
	{
		if (rest[i] == INFINITY)
		{
			continue;
		}
		int32_t r = find(parent, i);
		double t = keep[i] ? 0.0 : rest[i];
		if (r != i)
		{
			rest[r] = t < rest[r] ? t : rest[r];
		}
		else if (keep[i])
		{
			rest[i] = 0.0;
		}
	}
	// Islands that have rested long enough sleep together, their root the group.
	for (int i = 0; i < nodes; ++i)
	{
		if (rest[i] == INFINITY)
		{
			continue;
		}
		int32_t r = find(parent, i);
		if (!(rest[r] >= set->time_to_sleep))
		{
			continue;
		}
		if (i < bodies)
		{
			put_to_sleep_body(world->bodies + i, r);
		}
		else
		{
			put_to_sleep_artic(arts->items + (i - bodies), r);
		}
	}
}

// ---- the articulations' islands of XPBD and DIRECT worlds -------------------------------------------------

void island_mark_articulated(sn_world* world)
{
	artic_store* arts = world->artics;
	const bool split = (world->def.solver == SN_SOLVER_XPBD || world->def.solver == SN_SOLVER_DIRECT) && arts != NULL &&
		arts->count > 0;
	if (!split && !world->islands.marked)
	{
		return;
	}
	world->islands.marked = split;
	const int bodies = world->body_high;
	const int nodes = bodies + (arts != NULL ? arts->high : 0);
	int32_t* parent = world->islands.parent;
	uint8_t* keep = world->islands.keep; // here: the root holds an articulation
	for (int i = 0; i < nodes; ++i)
	{
		parent[i] = i;
		keep[i] = 0;
	}
	if (split)
	{
		const contact_state* c = &world->contacts;
		for (int i = 0; i < c->pair_count; ++i)
		{
			const contact_pair* p = c->pairs + i;
			if (p->manifold_count == 0 || (p->flags & PAIR_SENSOR) || !contact_pair_is_current(c->shapes, p))
			{
				continue;
			}
			int32_t na = node_of(world, c->shapes[p->shape_a].body), nb = node_of(world, c->shapes[p->shape_b].body);
			if (na >= 0 && nb >= 0)
			{
				unite(parent, na, nb);
			}
		}
		for (int i = 0; i < world->joint_high; ++i)
		{
			const joint* j = world->joints + i;
			if (!j->live || !j->enabled || j->broken)
			{
				continue;
			}
			int32_t na = node_of(world, j->body_a), nb = node_of(world, j->body_b);
			if (na >= 0 && nb >= 0)
			{
				unite(parent, na, nb);
			}
		}
		for (int i = bodies; i < nodes; ++i)
		{
			if (arts->items[i - bodies].live)
			{
				keep[find(parent, i)] = 1;
			}
		}
	}
	for (int i = 0; i < bodies; ++i)
	{
		body* b = world->bodies + i;
		b->articulated = split && b->live && b->type == SN_BODY_DYNAMIC && keep[find(parent, i)];
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		bool a =
			j->body_a >= 0 && (world->bodies[j->body_a].articulated || world->bodies[j->body_a].type == SN_BODY_LINK);
		bool b =
			j->body_b >= 0 && (world->bodies[j->body_b].articulated || world->bodies[j->body_b].type == SN_BODY_LINK);
		j->articulated = split && j->live && (a || b);
	}
}

// ---- public API -------------------------------------------------------------------------------------------

bool sn_body_is_awake(const sn_world* world, sn_body_id id)
{
	const body* b = world != NULL ? body_get(world, id) : NULL;
	if (b == NULL)
	{
		return false;
	}
	if (b->type == SN_BODY_LINK)
	{
		return !world->artics->items[b->artic].asleep;
	}
	return b->type == SN_BODY_DYNAMIC ? !b->asleep
									  : (b->type == SN_BODY_KINEMATIC && kinematic_moving(world, id.index1 - 1));
}

sn_error sn_body_wake(sn_world* world, sn_body_id id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (body_get(world, id) == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "wake body: invalid body id");
	}
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

bool sn_articulation_is_awake(const sn_world* world, sn_articulation_id id)
{
	const artic* a = world != NULL ? artic_get(world, id) : NULL;
	return a != NULL && !a->asleep;
}

sn_error sn_articulation_wake(sn_world* world, sn_articulation_id id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (artic_get(world, id) == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "wake articulation: invalid articulation id");
	}
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

int sn_world_get_awake_body_count(const sn_world* world)
{
	int n = 0;
	for (int i = 0; world != NULL && i < world->body_high; ++i)
	{
		const body* b = world->bodies + i;
		n += (b->live && b->type == SN_BODY_DYNAMIC && !b->asleep) ? 1 : 0;
	}
	return n;
}

int sn_world_get_awake_articulation_count(const sn_world* world)
{
	int n = 0;
	const artic_store* s = world != NULL ? world->artics : NULL;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		n += (s->items[i].live && !s->items[i].asleep) ? 1 : 0;
	}
	return n;
}

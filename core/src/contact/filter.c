// Which pairs of shapes may collide (shape.h lists the rules; Box2D's b2ShouldShapesCollide and its joint
// and body rules, MuJoCo's parent-child exclusion and PhysX's articulation self-collision switch).
//
// Checked in order of cost: sensors, one body, static pairs, categories and masks, then the body-pair
// rules. Links of one articulation: self-collision off, or parent and child. Bodies a maximal joint joins
// without collide_connected: a sorted array of body-pair keys rebuilt from the joints when they changed
// (joint creation and destruction mark it), searched by bisection. Explicit exclusions: a sorted array of
// body-pair keys (body slot + 1; 0 is the world), which snapshots keep.
#include "contact/contact.h"

#include "artic/artic.h"
#include "body.h"
#include "joint/joint.h"
#include "world.h"

#include <stdlib.h>
#include <string.h>

// Key of two body slots (-1, the world, is 0), smaller first.
static uint64_t body_pair_key(int32_t a, int32_t b)
{
	uint32_t x = (uint32_t)(a + 1), y = (uint32_t)(b + 1);
	return x < y ? ((uint64_t)x << 32) | y : ((uint64_t)y << 32) | x;
}

static bool sorted_contains(const uint64_t* keys, int count, uint64_t key)
{
	int lo = 0, hi = count;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (keys[mid] < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo < count && keys[lo] == key;
}

static int lower_bound(const uint64_t* keys, int count, uint64_t key)
{
	int lo = 0, hi = count;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (keys[mid] < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo;
}

static sn_body_type type_of(const sn_world* world, int32_t owner)
{
	return owner < 0 ? SN_BODY_STATIC : world->bodies[owner].type;
}

bool contact_should_collide(const sn_world* world, int32_t ia, int32_t ib)
{
	const contact_state* c = &world->contacts;
	const shape* a = c->shapes + ia;
	const shape* b = c->shapes + ib;
	if (a->sensor && b->sensor)
	{
		return false;
	}
	if (a->body == b->body)
	{
		return false; // one body (or both the world's)
	}
	if (!body_type_is_dynamic(type_of(world, a->body)) && !body_type_is_dynamic(type_of(world, b->body)))
	{
		return false; // nothing there can move the other
	}
	if ((a->filter.category & b->filter.mask) == 0 || (b->filter.category & a->filter.mask) == 0)
	{
		return false;
	}
	if (a->body >= 0 && b->body >= 0)
	{
		const body* ba = world->bodies + a->body;
		const body* bb = world->bodies + b->body;
		if (ba->type == SN_BODY_LINK && bb->type == SN_BODY_LINK && ba->artic == bb->artic)
		{
			const artic* art = world->artics->items + ba->artic;
			if (!art->self_collision || art->links[ba->link].parent == bb->link ||
				art->links[bb->link].parent == ba->link)
			{
				return false;
			}
		}
		if (sorted_contains(c->joint_pairs, c->joint_pair_count, body_pair_key(a->body, b->body)))
		{
			return false;
		}
	}
	return !sorted_contains(c->exclusions, c->exclusion_count, body_pair_key(a->body, b->body));
}

bool contact_filter_callback(void* context, int32_t a, int32_t b)
{
	return contact_should_collide((const sn_world*)context, a, b);
}

// A heap sort of keys in place, with no allocation (the step rebuilds the joint pairs; the C library's
// qsort may allocate), as broadphase_sort_pairs sorts pairs.
static void sift_keys(uint64_t* k, int at, int count)
{
	uint64_t item = k[at];
	for (int child = 2 * at + 1; child < count; child = 2 * at + 1)
	{
		if (child + 1 < count && k[child + 1] > k[child])
		{
			child += 1;
		}
		if (k[child] <= item)
		{
			break;
		}
		k[at] = k[child];
		at = child;
	}
	k[at] = item;
}

static void sort_keys(uint64_t* keys, int count)
{
	for (int i = count / 2 - 1; i >= 0; --i)
	{
		sift_keys(keys, i, count);
	}
	for (int end = count - 1; end > 0; --end)
	{
		uint64_t top = keys[0];
		keys[0] = keys[end];
		keys[end] = top;
		sift_keys(keys, 0, end);
	}
}

sn_error contact_filter_prepare(sn_world* world)
{
	contact_state* c = &world->contacts;
	if (!c->joint_pairs_dirty)
	{
		return SN_ERR_OK;
	}
	int count = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		count += (j->live && !j->collide_connected && j->body_a >= 0 && j->body_b >= 0) ? 1 : 0;
	}
	void* p = c->joint_pairs;
	if (!memory_reserve(&world->memory, &p, &c->joint_pair_capacity, count, sizeof(uint64_t)))
	{
		return SN_ERR_NO_MEMORY;
	}
	c->joint_pairs = p;
	int n = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (j->live && !j->collide_connected && j->body_a >= 0 && j->body_b >= 0)
		{
			c->joint_pairs[n++] = body_pair_key(j->body_a, j->body_b);
		}
	}
	sort_keys(c->joint_pairs, n);
	c->joint_pair_count = n;
	c->joint_pairs_dirty = false;
	return SN_ERR_OK;
}

void contact_joints_changed(sn_world* world, int32_t body_a, int32_t body_b)
{
	contact_state* c = &world->contacts;
	c->joint_pairs_dirty = true;
	c->refilter = true;
	// A joint that went away may let its bodies collide: they look for pairs again.
	if (body_a >= 0)
	{
		shape_touch_body(world, body_a);
	}
	if (body_b >= 0)
	{
		shape_touch_body(world, body_b);
	}
}

void contact_forget_body(sn_world* world, int32_t owner)
{
	contact_state* c = &world->contacts;
	uint32_t slot = (uint32_t)(owner + 1);
	int w = 0;
	for (int i = 0; i < c->exclusion_count; ++i)
	{
		uint64_t k = c->exclusions[i];
		if ((uint32_t)(k >> 32) != slot && (uint32_t)k != slot)
		{
			c->exclusions[w++] = k;
		}
	}
	c->exclusion_count = w;
}

// A body id from outside: the world (null) or a live body; -2 if invalid.
static int32_t body_slot(const sn_world* world, sn_body_id id)
{
	if (sn_body_id_is_null(id))
	{
		return -1;
	}
	return body_get(world, id) != NULL ? id.index1 - 1 : -2;
}

sn_error sn_world_set_pair_collision(sn_world* world, sn_body_id body_a, sn_body_id body_b, bool enabled)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	int32_t a = body_slot(world, body_a), b = body_slot(world, body_b);
	if (a == -2 || b == -2)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "set pair collision: %s is not a live body of this world",
						  a == -2 ? "body_a" : "body_b");
	}
	if (a == b)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "set pair collision: a body's own shapes never collide with each other");
	}
	contact_state* c = &world->contacts;
	uint64_t key = body_pair_key(a, b);
	int at = lower_bound(c->exclusions, c->exclusion_count, key);
	bool present = at < c->exclusion_count && c->exclusions[at] == key;
	if (!enabled && !present)
	{
		void* p = c->exclusions;
		if (!memory_reserve(&world->memory, &p, &c->exclusion_capacity, c->exclusion_count + 1, sizeof(uint64_t)))
		{
			return world_fail(world, SN_ERR_NO_MEMORY, "set pair collision: out of memory");
		}
		c->exclusions = p;
		memmove(c->exclusions + at + 1, c->exclusions + at, (size_t)(c->exclusion_count - at) * sizeof(uint64_t));
		c->exclusions[at] = key;
		c->exclusion_count += 1;
		c->refilter = true;
	}
	else if (enabled && present)
	{
		memmove(c->exclusions + at, c->exclusions + at + 1, (size_t)(c->exclusion_count - at - 1) * sizeof(uint64_t));
		c->exclusion_count -= 1;
		// Pairs the exclusion kept out are found again (a = -1: the world's own shapes).
		shape_touch_body(world, a);
		shape_touch_body(world, b);
	}
	return SN_ERR_OK;
}

bool sn_world_get_pair_collision(const sn_world* world, sn_body_id body_a, sn_body_id body_b)
{
	if (world == NULL)
	{
		return true;
	}
	int32_t a = body_slot(world, body_a), b = body_slot(world, body_b);
	if (a == -2 || b == -2 || a == b)
	{
		return true;
	}
	const contact_state* c = &world->contacts;
	return !sorted_contains(c->exclusions, c->exclusion_count, body_pair_key(a, b));
}

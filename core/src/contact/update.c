// The collision stage of a step (Box2D v3's b2Collide and b2UpdateContact, in one thread): at the poses
// the step starts from, before the solver.
//
// Boxes. A shape on a moving body is placed at its body's pose; every point of its solid moves during the
// step at most at
//   s = |v| + |g_eff| dt + |w| (|x_shape - x_com| + reach)
// (v and w the body's velocities at the start, g_eff its scaled gravity, reach the largest distance of
// the solid from the shape's origin): the speed bound. Its box grown by s dt holds it wherever it goes
// in the step; grown also by half of SN_SPECULATIVE_DISTANCE, two shapes closer than that distance have
// overlapping boxes. The broadphase keeps that box fattened by 0.1 m and re-inserts it only when the box
// leaves its fat box (collide/broadphase.c). A fat box always holds the shape's current box, so two
// shapes closer than their speculative margin (below) always have overlapping fat boxes, whatever the
// history of the tree: the pairs that have contact points do not depend on when proxies moved, only the
// empty ones do.
//
// Pairs. The tree reports pairs of fat boxes that began to overlap (after the filter, contact/filter.c);
// planes, kept out of the tree (their boxes would spoil the surface-area heuristic of every node above
// them), pair with every dynamic or link shape whose fat box reaches below them, checked for the shapes
// whose proxy moved (and every shape for a new or moved plane). The pair cache is an array sorted by
// (shape A slot, shape B slot): each update merges the new pairs into it in one pass and writes the next
// cache and its manifolds into second arrays, then swaps. A cached pair is dropped when its fat boxes stop
// overlapping, when a shape was destroyed (its slot's generation changed), or when a filter rule that
// changed now refuses it.
//
// Narrowphase. Every other pair gets its manifolds (collide/narrowphase.c) with the speculative margin
//   margin = SN_SPECULATIVE_DISTANCE + dt (s_A + s_B)
// the distance the two surfaces can close in this step plus a constant (Catto, "Continuous Collision",
// GDC 2013: speculative contacts): a point whose gap is below the margin is reported with its (positive)
// separation, so the solver can hold the gap at zero instead of letting a fast body pass a thin one. A
// sensor pair is tested for overlap instead (collide_overlap) and gets no manifolds.
//
// Persistence. Each new point takes the warm-start impulses of the last step's point of the same pair
// with the same feature id (collide/manifold.h: ids name the features that made the point), as Box2D's
// b2UpdateContact matches ids, and is marked persisted.
//
// Events. A pair touches when a point's separation is at most SN_CONTACT_TOUCH_DISTANCE (a sensor pair:
// when the solids overlap); a pair that began touching gives a begin event, one that stopped (or ended
// while touching) an end event, at most SN_MAX_CONTACT_EVENTS of each kind per step.
//
// Memory. contact_prepare does everything that may allocate (the filter's joint pairs, the tree's pair
// buffer, the candidates, room for the next cache, its manifolds and the events, each bounded by what the
// merge can produce) before anything observable changes; contact_update allocates nothing. A failure in
// prepare leaves the proxies of the pairs found so far marked moved and the shapes' plane flags set, so
// the next attempt finds the same pairs. In DIRECT worlds prepare also brings the solver's graph up to
// the pairs the step may touch (the cache's and the candidates', solver/direct.c), which may analyse it
// again and allocate. Order: shapes, pairs and events by slot, never by address.
#include "contact/contact.h"
#include "contact/solver.h"
#include "island.h"

#include "artic/artic.h"
#include "body.h"
#include "collide/bounds.h"
#include "collide/narrowphase.h"
#include "collide/query.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The motion of a link's body, and the velocity of the point of the link at the world origin.
typedef struct link_motion
{
	body_motion m;
	sn_vec3 vo;
} link_motion;

void contact_init(sn_world* world)
{
	contact_state* c = &world->contacts;
	memset(c, 0, sizeof(*c));
	c->shape_free = -1;
	c->world_shape_head = -1;
	broadphase_init(&c->bp, BROADPHASE_DEFAULT_MARGIN);
	c->max_pairs = SN_MAX_CONTACT_PAIRS;
	c->bp.max_pairs = SN_MAX_CONTACT_PAIRS;
}

void contact_release(sn_world* world)
{
	contact_state* c = &world->contacts;
	sn_memory* m = &world->memory;
	shape_release_all(world);
	broadphase_release(&c->bp, m);
	memory_free(m, c->pairs, (size_t)c->pair_capacity * sizeof(contact_pair));
	memory_free(m, c->next_pairs, (size_t)c->next_pair_capacity * sizeof(contact_pair));
	memory_free(m, c->manifolds, (size_t)c->manifold_capacity * sizeof(contact_manifold));
	memory_free(m, c->next_manifolds, (size_t)c->next_manifold_capacity * sizeof(contact_manifold));
	memory_free(m, c->candidates, (size_t)c->candidate_capacity * sizeof(broadphase_pair));
	memory_free(m, c->motions, (size_t)c->motion_capacity * sizeof(struct link_motion));
	memory_free(m, c->exclusions, (size_t)c->exclusion_capacity * sizeof(uint64_t));
	memory_free(m, c->joint_pairs, (size_t)c->joint_pair_capacity * sizeof(uint64_t));
	memory_free(m, c->begin_events, (size_t)c->begin_capacity * sizeof(sn_contact_event));
	memory_free(m, c->end_events, (size_t)c->end_capacity * sizeof(sn_contact_event));
	memory_free(m, c->sensor_begin_events, (size_t)c->sensor_begin_capacity * sizeof(sn_sensor_event));
	memory_free(m, c->sensor_end_events, (size_t)c->sensor_end_capacity * sizeof(sn_sensor_event));
	memset(c, 0, sizeof(*c));
}

// ---- placing shapes ------------------------------------------------------------------------------------

// A box of its own for a shape beyond the world's extent: 2 m apart by slot, twice the extent out, where
// no placed shape reaches, so parked proxies pair with nothing.
static collide_aabb parking_box(int32_t index)
{
	double e = 2.0 * SN_COLLIDE_WORLD_EXTENT;
	sn_vec3 c = sn_v3(e + 2.0 * (double)index, e, e);
	return aabb_extend(aabb_point(c), 0.01);
}

static bool within_extent(collide_aabb box)
{
	double e = SN_COLLIDE_WORLD_EXTENT;
	return aabb_is_valid(box) && box.lower.x >= -e && box.lower.y >= -e && box.lower.z >= -e && box.upper.x <= e &&
		box.upper.y <= e && box.upper.z <= e;
}

// Every link's motion in one outward pass (artic_point_velocity walks from a link to the base for each
// point instead, which is quadratic in a chain's length): with w the angular velocity and vo the velocity
// of the point at the world origin moving with the link, a joint adds (artic/kinematics.c)
//   revolute, spherical   w += wj,  vo += anchor x wj   (wj the joint's angular velocity, world)
//   prismatic             vo += qd axis
// and a floating base starts from w = w_base, vo = v_base - w_base x p_base; a point p then moves at
// vo + w x p.
static void articulation_motions(const artic* a, link_motion* out)
{
	for (int i = 0; i < a->link_count; ++i)
	{
		link_motion* lm = out + a->link_body[i];
		const artic_link* l = a->links + i;
		if (i == 0)
		{
			lm->m.w = a->fixed_base ? sn_v3(0, 0, 0) : a->base_w;
			lm->vo = a->fixed_base ? sn_v3(0, 0, 0) : sn_sub(a->base_v, sn_cross(a->base_w, a->base_pose.p));
		}
		else
		{
			const link_motion* p = out + a->link_body[l->parent];
			const artic_kin* k = a->kin + i;
			const double* qd = a->qd + l->dof;
			lm->m.w = p->m.w;
			lm->vo = p->vo;
			sn_vec3 wj = sn_v3(0, 0, 0);
			switch (l->type)
			{
				case SN_LINK_JOINT_REVOLUTE:
					wj = sn_scale(qd[0], k->joint.cx);
					break;
				case SN_LINK_JOINT_SPHERICAL:
					wj = sn_mat33_mul_v(artic_parent_joint_axes(a, i), sn_v3(qd[0], qd[1], qd[2]));
					break;
				case SN_LINK_JOINT_PRISMATIC:
					lm->vo = sn_mul_add(lm->vo, qd[0], k->joint.cx);
					break;
				default:
					break;
			}
			lm->m.w = sn_add(lm->m.w, wj);
			lm->vo = sn_add(lm->vo, sn_cross(k->anchor, wj));
		}
		lm->m.pose = artic_link_pose(a, i);
		lm->m.com = sn_transform_point(lm->m.pose, a->info[i].com);
		lm->m.v = sn_add(lm->vo, sn_cross(lm->m.w, lm->m.com));
	}
}

// contact_place_shape with the body's motion given.
static void place(sn_world* world, shape* s, int32_t index, double dt, body_motion m, collide_aabb* tight, bool* far)
{
	s->xf = s->body < 0 ? s->local : sn_transform_mul(m.pose, s->local);
	s->speed = 0.0;
	if (s->geom.type == COLLIDE_PLANE)
	{
		s->world_plane = shape_world_plane(s, s->xf);
		if (far != NULL)
		{
			*far = false;
		}
		return;
	}
	if (s->body >= 0)
	{
		const body* b = world->bodies + s->body;
		double gravity = 0.0;
		if (b->type == SN_BODY_DYNAMIC)
		{
			gravity = fabs(b->gravity_scale) * sn_length(world->def.gravity);
		}
		else if (b->type == SN_BODY_LINK)
		{
			gravity = fabs(world->artics->items[b->artic].gravity_scale) * sn_length(world->def.gravity);
		}
		if (b->type != SN_BODY_STATIC)
		{
			double arm = sn_length(sn_sub(s->xf.p, m.com)) + s->reach;
			s->speed = sn_length(m.v) + gravity * dt + sn_length(m.w) * arm;
		}
	}
	collide_aabb box = collide_shape_aabb(&s->geom, s->xf, dt * s->speed + 0.5 * SN_SPECULATIVE_DISTANCE);
	bool out = !within_extent(box) || !isfinite(s->speed);
	s->box = out ? parking_box(index) : box;
	if (tight != NULL)
	{
		*tight = s->box;
	}
	if (far != NULL)
	{
		*far = out;
	}
}

void contact_place_shape(sn_world* world, shape* s, int32_t index, double dt, collide_aabb* tight, bool* far)
{
	place(world, s, index, dt, body_motion_of(world, s->body), tight, far);
}

double contact_fat_margin(const sn_world* world, const shape* s)
{
	if (shape_body_is_static(world, s->body))
	{
		return 0.0;
	}
	return fmin(BROADPHASE_DEFAULT_MARGIN, 0.5 * s->reach);
}

// Every moving shape, and the shapes of static bodies a setter moved, placed for this step; proxies
// re-inserted where the shape left its fat box.
static int update_proxies(sn_world* world, double dt)
{
	contact_state* c = &world->contacts;
	int moved = 0;
	// The links' motions first (room for them was made by contact_prepare; a query's refresh, which
	// cannot allocate, takes each link's motion from its articulation one by one when there is none).
	const artic_store* arts = world->artics;
	bool have_motions = arts != NULL && c->motion_capacity >= world->body_high;
	for (int a = 0; have_motions && a < arts->high; ++a)
	{
		if (arts->items[a].live)
		{
			articulation_motions(arts->items + a, c->motions);
		}
	}
	for (int i = 0; i < c->shape_high; ++i)
	{
		shape* s = c->shapes + i;
		if (!s->live || s->body < 0)
		{
			continue;
		}
		const body* b = world->bodies + s->body;
		if (b->type == SN_BODY_STATIC && !b->moved)
		{
			continue;
		}
		collide_aabb tight;
		bool far;
		body_motion m =
			(b->type == SN_BODY_LINK && have_motions) ? c->motions[s->body].m : body_motion_of(world, s->body);
		place(world, s, i, dt, m, &tight, &far);
		if (s->geom.type == COLLIDE_PLANE)
		{
			s->flags |= b->moved ? SHAPE_FIND_PAIRS : 0;
			continue;
		}
		s->flags = (uint8_t)(far ? (s->flags | SHAPE_FAR) : (s->flags & ~SHAPE_FAR));
		if (broadphase_move_proxy_by(&c->bp, s->proxy, tight, contact_fat_margin(world, s)))
		{
			s->flags |= SHAPE_FIND_PAIRS;
			moved += 1;
		}
	}
	return moved;
}

void contact_refresh_proxies(sn_world* world)
{
	contact_state* c = &world->contacts;
	if (!c->proxies_stale)
	{
		return;
	}
	update_proxies(world, world->def.time_step);
	c->proxies_stale = false;
}

// ---- candidates ----------------------------------------------------------------------------------------

// Whether a box reaches a world plane grown by half the speculative distance (a plane has no box of its
// own to carry that half, as every other shape's does): its lowest corner along the normal.
static bool box_reaches_plane(collide_aabb box, collide_plane p)
{
	sn_vec3 c = aabb_center(box), e = aabb_extents(box), n = p.normal;
	double low = sn_dot(n, c) - (fabs(n.x) * e.x + fabs(n.y) * e.y + fabs(n.z) * e.z);
	return low <= p.offset + 0.5 * SN_SPECULATIVE_DISTANCE;
}

// A shape that planes pair with: in the dynamic tree (a dynamic body's or a link's) and not parked.
static bool plane_partner(const shape* s)
{
	return s->live && s->proxy != BROADPHASE_NULL_KEY && broadphase_key_type(s->proxy) == BROADPHASE_DYNAMIC &&
		!(s->flags & SHAPE_FAR);
}

static void add_candidate(contact_state* c, int32_t a, int32_t b)
{
	broadphase_pair* p = c->candidates + c->candidate_count++;
	p->user_a = a < b ? a : b;
	p->user_b = a < b ? b : a;
}

static void plane_candidate(sn_world* world, int32_t plane, int32_t other)
{
	contact_state* c = &world->contacts;
	const shape* p = c->shapes + plane;
	const shape* s = c->shapes + other;
	if (plane_partner(s) && box_reaches_plane(broadphase_fat_aabb(&c->bp, s->proxy), p->world_plane) &&
		contact_should_collide(world, plane, other))
	{
		add_candidate(c, plane, other);
	}
}

static int compare_candidates(const void* x, const void* y)
{
	const broadphase_pair* p = (const broadphase_pair*)x;
	const broadphase_pair* q = (const broadphase_pair*)y;
	if (p->user_a != q->user_a)
	{
		return p->user_a < q->user_a ? -1 : 1;
	}
	return p->user_b < q->user_b ? -1 : (p->user_b > q->user_b ? 1 : 0);
}

// Whether two shapes' grown boxes overlap (a plane's half-space, grown by half the speculative distance,
// reaches the other's box): otherwise they are farther apart than their speculative margin, and the
// narrowphase would find no points (nor a sensor an overlap). Parked shapes' boxes meet nothing.
static bool pair_near(const shape* a, const shape* b)
{
	if (a->geom.type == COLLIDE_PLANE)
	{
		return box_reaches_plane(b->box, a->world_plane);
	}
	if (b->geom.type == COLLIDE_PLANE)
	{
		return box_reaches_plane(a->box, b->world_plane);
	}
	return aabb_overlaps(a->box, b->box);
}

// Manifolds a pair of these two shapes can produce at most in this update.
static int manifold_bound(const shape* a, const shape* b)
{
	if (a->sensor || b->sensor || !pair_near(a, b))
	{
		return 0;
	}
	return (a->geom.type == COLLIDE_MESH || b->geom.type == COLLIDE_MESH) ? COLLIDE_MAX_MANIFOLDS : 1;
}

static bool reserve_array(sn_world* world, void** array, int* capacity, int needed, size_t size)
{
	return memory_reserve(&world->memory, array, capacity, needed, size);
}

// Undo what a failed prepare consumed from the broadphase: the pairs it found are found again next time.
static void requeue_candidates(contact_state* c, int count)
{
	for (int i = 0; i < count; ++i)
	{
		const int32_t ends[2] = { c->candidates[i].user_a, c->candidates[i].user_b };
		for (int k = 0; k < 2; ++k)
		{
			const shape* s = c->shapes + ends[k];
			if (s->live && s->proxy != BROADPHASE_NULL_KEY)
			{
				broadphase_touch_proxy(&c->bp, s->proxy);
			}
		}
	}
}

// The DIRECT solver's graph of joints and pairs (solver/direct.c), once the pairs of the step are known.
static sn_error prepare_direct_graph(sn_world* world)
{
	if (world->def.solver != SN_SOLVER_DIRECT || direct_prepare_graph(world) == SN_ERR_OK)
	{
		return SN_ERR_OK;
	}
	return world_fail(world, SN_ERR_NO_MEMORY, "DIRECT: out of memory for the graph of joints and contacts");
}

sn_error contact_prepare(sn_world* world, double dt)
{
	contact_state* c = &world->contacts;
	c->candidate_count = 0;
	if (c->shape_count == 0 && c->pair_count == 0)
	{
		return prepare_direct_graph(world);
	}
	if (contact_filter_prepare(world) != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "collision: out of memory for the joint filter");
	}
	if (world->artics != NULL && world->artics->count > 0)
	{
		void* m = c->motions;
		if (!memory_reserve(&world->memory, &m, &c->motion_capacity, world->body_high, sizeof(link_motion)))
		{
			return world_fail(world, SN_ERR_NO_MEMORY, "collision: out of memory for the links' motions");
		}
		c->motions = m;
	}
	c->stats.proxies_moved = update_proxies(world, dt);
	for (int i = 0; i < world->body_high; ++i)
	{
		world->bodies[i].moved = false;
	}
	c->proxies_stale = false;
	if (broadphase_update_pairs(&c->bp, &world->memory, contact_filter_callback, world) != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "collision: out of memory for the broadphase pairs");
	}

	// Candidates: the tree's new pairs, and plane pairs of the shapes marked to look for them.
	int dynamic_shapes = 0, flagged = 0, flagged_planes = 0;
	for (int i = 0; i < c->shape_high; ++i)
	{
		const shape* s = c->shapes + i;
		dynamic_shapes += plane_partner(s) ? 1 : 0;
		if (s->live && (s->flags & SHAPE_FIND_PAIRS))
		{
			flagged += s->geom.type == COLLIDE_PLANE ? 0 : 1;
			flagged_planes += s->geom.type == COLLIDE_PLANE ? 1 : 0;
		}
	}
	int64_t bound = (int64_t)c->bp.pair_count;
	if (c->plane_count > 0)
	{
		bound += (int64_t)flagged * c->plane_count + (int64_t)flagged_planes * dynamic_shapes;
	}
	void* p = c->candidates;
	bool ok = bound < INT32_MAX / 2 &&
		reserve_array(world, &p, &c->candidate_capacity, (int)bound + 1, sizeof(broadphase_pair));
	c->candidates = p;
	if (!ok)
	{
		// The tree's new pairs are found again next time: their proxies go back into the move buffer.
		for (int i = 0; i < c->bp.pair_count; ++i)
		{
			broadphase_touch_proxy(&c->bp, c->shapes[c->bp.pairs[i].user_a].proxy);
			broadphase_touch_proxy(&c->bp, c->shapes[c->bp.pairs[i].user_b].proxy);
		}
		return world_fail(world, SN_ERR_NO_MEMORY, "collision: out of memory for new pairs");
	}
	if (c->bp.pair_count > 0)
	{
		memcpy(c->candidates, c->bp.pairs, (size_t)c->bp.pair_count * sizeof(broadphase_pair));
	}
	c->candidate_count = c->bp.pair_count;
	if (c->plane_count > 0 && (flagged > 0 || flagged_planes > 0))
	{
		for (int i = 0; i < c->shape_high; ++i)
		{
			const shape* s = c->shapes + i;
			if (!s->live || !(s->flags & SHAPE_FIND_PAIRS))
			{
				continue;
			}
			if (s->geom.type == COLLIDE_PLANE)
			{
				for (int j = 0; j < c->shape_high; ++j)
				{
					plane_candidate(world, i, j);
				}
			}
			else
			{
				for (int k = 0; k < c->plane_count; ++k)
				{
					plane_candidate(world, c->planes[k], i);
				}
			}
		}
	}
	if (c->candidate_count > 1)
	{
		broadphase_sort_pairs(c->candidates, c->candidate_count);
		int unique = 1;
		for (int i = 1; i < c->candidate_count; ++i)
		{
			if (compare_candidates(&c->candidates[unique - 1], &c->candidates[i]) != 0)
			{
				c->candidates[unique++] = c->candidates[i];
			}
		}
		c->candidate_count = unique;
	}
	// At most SN_MAX_CONTACT_PAIRS pairs: the candidates beyond go (the first in key order stay).
	int room = c->max_pairs - c->pair_count;
	room = room > 0 ? room : 0;
	if (c->candidate_count > room)
	{
		c->pairs_dropped += (uint64_t)(c->candidate_count - room);
		c->candidate_count = room;
	}

	// Room for the merge: every cached pair and candidate may stay, each with its most manifolds; each
	// kind of event at most one per pair.
	int64_t manifolds = 0, jac = 0;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* q = c->pairs + i;
		if (contact_pair_is_current(world->contacts.shapes, q))
		{
			int most = manifold_bound(c->shapes + q->shape_a, c->shapes + q->shape_b);
			manifolds += most;
			jac += most > 0 ? contact_solver_link_demand(world, q->shape_a, q->shape_b, most) : 0;
		}
	}
	for (int i = 0; i < c->candidate_count; ++i)
	{
		const broadphase_pair* q = c->candidates + i;
		int most = manifold_bound(c->shapes + q->user_a, c->shapes + q->user_b);
		manifolds += most;
		jac += most > 0 ? contact_solver_link_demand(world, q->user_a, q->user_b, most) : 0;
	}
	int pairs = c->pair_count + c->candidate_count;
	int events = pairs < SN_MAX_CONTACT_EVENTS ? pairs : SN_MAX_CONTACT_EVENTS;
	ok = manifolds < INT32_MAX / 2;
	p = c->next_pairs;
	ok = ok && reserve_array(world, &p, &c->next_pair_capacity, pairs, sizeof(contact_pair));
	c->next_pairs = p;
	p = c->next_manifolds;
	ok = ok && reserve_array(world, &p, &c->next_manifold_capacity, (int)manifolds, sizeof(contact_manifold));
	c->next_manifolds = p;
	p = c->begin_events;
	ok = ok && reserve_array(world, &p, &c->begin_capacity, events, sizeof(sn_contact_event));
	c->begin_events = p;
	p = c->end_events;
	ok = ok && reserve_array(world, &p, &c->end_capacity, events, sizeof(sn_contact_event));
	c->end_events = p;
	p = c->sensor_begin_events;
	ok = ok && reserve_array(world, &p, &c->sensor_begin_capacity, events, sizeof(sn_sensor_event));
	c->sensor_begin_events = p;
	p = c->sensor_end_events;
	ok = ok && reserve_array(world, &p, &c->sensor_end_capacity, events, sizeof(sn_sensor_event));
	c->sensor_end_events = p;
	// The contact solver's constraints (one per manifold) and link rows (contact/solver.c).
	ok = ok && contact_solver_reserve(world, (int)manifolds, jac);
	if (!ok)
	{
		requeue_candidates(c, c->candidate_count);
		c->candidate_count = 0;
		return world_fail(world, SN_ERR_NO_MEMORY, "collision: out of memory for the pair cache");
	}
	// DIRECT's graph has a node per pair its contacts may join: the cache's and the candidates'.
	sn_error err = prepare_direct_graph(world);
	if (err != SN_ERR_OK)
	{
		requeue_candidates(c, c->candidate_count);
		c->candidate_count = 0;
		return err;
	}
	return SN_ERR_OK;
}

// ---- the update ----------------------------------------------------------------------------------------

typedef struct update_ctx
{
	sn_world* world;
	contact_state* c;
	double dt;
	int next_count;
	int next_manifold_count;
	int begun, ended;
	int touching, points;
	double deepest;
} update_ctx;

static sn_shape_id pair_shape_id(const sn_world* world, int32_t slot, uint32_t generation)
{
	sn_shape_id id = { slot + 1, world_id_generation(world, generation) };
	return id;
}

static void push_contact_event(update_ctx* u, bool begin, const contact_pair* p)
{
	contact_state* c = u->c;
	int* count = begin ? &c->begin_count : &c->end_count;
	if (*count >= (begin ? c->begin_capacity : c->end_capacity) || *count >= SN_MAX_CONTACT_EVENTS)
	{
		c->dropped += 1;
		return;
	}
	sn_contact_event* e = (begin ? c->begin_events : c->end_events) + (*count)++;
	e->shape_a = pair_shape_id(u->world, p->shape_a, p->generation_a);
	e->shape_b = pair_shape_id(u->world, p->shape_b, p->generation_b);
	e->body_a = p->body_a;
	e->body_b = p->body_b;
}

static void push_sensor_event(update_ctx* u, bool begin, const contact_pair* p)
{
	contact_state* c = u->c;
	int* count = begin ? &c->sensor_begin_count : &c->sensor_end_count;
	if (*count >= (begin ? c->sensor_begin_capacity : c->sensor_end_capacity) || *count >= SN_MAX_CONTACT_EVENTS)
	{
		c->dropped += 1;
		return;
	}
	sn_sensor_event* e = (begin ? c->sensor_begin_events : c->sensor_end_events) + (*count)++;
	// The sensor is A unless only B is one (two sensors never pair).
	bool a_is_sensor = u->world->contacts.shapes[p->shape_a].live &&
		u->world->contacts.shapes[p->shape_a].generation == p->generation_a &&
		u->world->contacts.shapes[p->shape_a].sensor;
	bool b_is_sensor = u->world->contacts.shapes[p->shape_b].live &&
		u->world->contacts.shapes[p->shape_b].generation == p->generation_b &&
		u->world->contacts.shapes[p->shape_b].sensor;
	bool sensor_a = a_is_sensor || !b_is_sensor;
	sn_shape_id a = pair_shape_id(u->world, p->shape_a, p->generation_a);
	sn_shape_id b = pair_shape_id(u->world, p->shape_b, p->generation_b);
	e->sensor = sensor_a ? a : b;
	e->visitor = sensor_a ? b : a;
	e->sensor_body = sensor_a ? p->body_a : p->body_b;
	e->visitor_body = sensor_a ? p->body_b : p->body_a;
}

// A pair leaves the cache: its end event if it touched.
static void end_pair(update_ctx* u, const contact_pair* p)
{
	u->ended += 1;
	if (p->flags & PAIR_TOUCHING)
	{
		if (p->flags & PAIR_SENSOR)
		{
			push_sensor_event(u, false, p);
		}
		else
		{
			push_contact_event(u, false, p);
		}
	}
}

// Whether the pair's fat boxes (a plane's half-space) still overlap.
static bool pair_overlaps(const contact_state* c, const contact_pair* p)
{
	const shape* a = c->shapes + p->shape_a;
	const shape* b = c->shapes + p->shape_b;
	if (a->geom.type == COLLIDE_PLANE)
	{
		return plane_partner(b) && box_reaches_plane(broadphase_fat_aabb(&c->bp, b->proxy), a->world_plane);
	}
	if (b->geom.type == COLLIDE_PLANE)
	{
		return plane_partner(a) && box_reaches_plane(broadphase_fat_aabb(&c->bp, a->proxy), b->world_plane);
	}
	return aabb_overlaps(broadphase_fat_aabb(&c->bp, a->proxy), broadphase_fat_aabb(&c->bp, b->proxy));
}

// The point of the previous manifolds with this feature id, or NULL.
static const contact_point* find_old_point(const contact_state* c, const contact_pair* old, uint64_t id)
{
	if (old == NULL)
	{
		return NULL;
	}
	for (int m = 0; m < old->manifold_count; ++m)
	{
		const contact_manifold* om = c->manifolds + old->first + m;
		for (int k = 0; k < om->point_count; ++k)
		{
			if (om->points[k].id == id)
			{
				return om->points + k;
			}
		}
	}
	return NULL;
}

// Failing an id, the previous point of a manifold with nearly the same normal (cosine above 0.999) that
// lies within CONTACT_MATCH_DISTANCE of this one and that no other new point took, as Bullet's persistent
// manifolds match points by distance. Clipping names a point by the features that made it, and where two
// equal faces lie exactly on each other (a stack of equal boxes) rounding decides whether a corner is
// the incident face's vertex or a clipped edge: the id flips while the point stays where it was, and a
// point that loses its warm start unbalances the stack.
#define CONTACT_MATCH_DISTANCE 0.002
static const contact_point* find_near_point(const contact_state* c, const contact_pair* old, sn_vec3 normal,
											sn_vec3 position, const uint8_t* taken)
{
	if (old == NULL)
	{
		return NULL;
	}
	const contact_point* best = NULL;
	double best_d2 = CONTACT_MATCH_DISTANCE * CONTACT_MATCH_DISTANCE;
	int index = 0;
	for (int m = 0; m < old->manifold_count; ++m)
	{
		const contact_manifold* om = c->manifolds + old->first + m;
		bool aligned = sn_dot(om->normal, normal) > 0.999;
		for (int k = 0; k < om->point_count; ++k, ++index)
		{
			if (!aligned || taken[index])
			{
				continue;
			}
			sn_vec3 d = sn_sub(om->points[k].position, position);
			double d2 = sn_dot(d, d);
			if (d2 <= best_d2)
			{
				best = om->points + k;
				best_d2 = d2;
			}
		}
	}
	return best;
}

// The index of an old point among its pair's points (manifold by manifold).
static int old_point_index(const contact_state* c, const contact_pair* old, const contact_point* p)
{
	int index = 0;
	for (int m = 0; m < old->manifold_count; ++m)
	{
		const contact_manifold* om = c->manifolds + old->first + m;
		if (p >= om->points && p < om->points + om->point_count)
		{
			return index + (int)(p - om->points);
		}
		index += om->point_count;
	}
	return -1;
}

// The narrowphase for a pair that stays (old: its previous record, NULL for a new pair); appends it to the
// next cache with its manifolds and events.
static void evaluate_pair(update_ctx* u, contact_pair pair, const contact_pair* old)
{
	contact_state* c = u->c;
	const shape* a = c->shapes + pair.shape_a;
	const shape* b = c->shapes + pair.shape_b;
	bool was_touching = old != NULL && (old->flags & PAIR_TOUCHING);
	bool touching = false;
	pair.first = u->next_manifold_count;
	pair.manifold_count = 0;
	// Shapes whose grown boxes do not overlap are farther apart than their margin: no points (and no
	// overlap), without the narrowphase.
	bool far = (a->flags & SHAPE_FAR) || (b->flags & SHAPE_FAR) || !pair_near(a, b);
	if (pair.flags & PAIR_SENSOR)
	{
		touching = !far && collide_overlap(&a->geom, a->xf, &b->geom, b->xf);
	}
	else if (!far)
	{
		collide_manifold out[COLLIDE_MAX_MANIFOLDS];
		double margin = SN_SPECULATIVE_DISTANCE + u->dt * (a->speed + b->speed);
		int count = collide_shapes(&a->geom, a->xf, &b->geom, b->xf, margin, out);
		// Old points taken by a new one (by id first, then by distance).
		uint8_t taken[COLLIDE_MAX_MANIFOLDS * COLLIDE_MANIFOLD_POINTS] = { 0 };
		for (int m = 0; m < count && old != NULL; ++m)
		{
			for (int k = 0; k < out[m].point_count; ++k)
			{
				const contact_point* op = find_old_point(c, old, out[m].points[k].id);
				int index = op != NULL ? old_point_index(c, old, op) : -1;
				if (index >= 0)
				{
					taken[index] = 1;
				}
			}
		}
		for (int m = 0; m < count; ++m)
		{
			if (out[m].point_count == 0)
			{
				continue;
			}
			contact_manifold* cm = c->next_manifolds + u->next_manifold_count++;
			pair.manifold_count += 1;
			cm->normal = out[m].normal;
			cm->point_count = out[m].point_count;
			for (int k = 0; k < out[m].point_count; ++k)
			{
				const collide_point* np = out[m].points + k;
				contact_point* cp = cm->points + k;
				cp->position = np->point;
				cp->separation = np->separation;
				cp->id = np->id;
				const contact_point* op = find_old_point(c, old, np->id);
				if (op == NULL)
				{
					op = find_near_point(c, old, out[m].normal, np->point, taken);
					int index = op != NULL ? old_point_index(c, old, op) : -1;
					if (index >= 0)
					{
						taken[index] = 1;
					}
				}
				cp->persisted = op != NULL;
				cp->normal_impulse = op != NULL ? op->normal_impulse : 0.0;
				cp->tangent_impulse[0] = op != NULL ? op->tangent_impulse[0] : 0.0;
				cp->tangent_impulse[1] = op != NULL ? op->tangent_impulse[1] : 0.0;
				touching = touching || np->separation <= SN_CONTACT_TOUCH_DISTANCE;
				u->deepest = fmin(u->deepest, np->separation);
				u->points += 1;
			}
		}
	}
	pair.flags = (pair.flags & ~(uint32_t)PAIR_TOUCHING) | (touching ? PAIR_TOUCHING : 0u);
	c->next_pairs[u->next_count++] = pair;
	u->touching += touching ? 1 : 0;
	if (touching != was_touching)
	{
		if (pair.flags & PAIR_SENSOR)
		{
			push_sensor_event(u, touching, &pair);
		}
		else
		{
			push_contact_event(u, touching, &pair);
		}
	}
}

// A pair neither of whose shapes moved since the last update (both asleep, or asleep and static) keeps its
// manifolds as they are, without the narrowphase: a sleeping island costs nothing here (island.c).
static bool pair_frozen(const sn_world* world, const contact_pair* p)
{
	const shape* a = world->contacts.shapes + p->shape_a;
	const shape* b = world->contacts.shapes + p->shape_b;
	if ((a->flags | b->flags) & SHAPE_FIND_PAIRS)
	{
		return false; // a static body was moved, or a filter changed
	}
	const int32_t ends[2] = { a->body, b->body };
	bool asleep = false;
	for (int s = 0; s < 2; ++s)
	{
		if (ends[s] < 0)
		{
			continue;
		}
		const body* bd = world->bodies + ends[s];
		if (bd->moved)
		{
			return false;
		}
		if (island_body_asleep(world, ends[s]))
		{
			asleep = true;
			continue;
		}
		if (bd->type != SN_BODY_STATIC)
		{
			return false; // awake, or kinematic
		}
	}
	return asleep;
}

static void keep_pair(update_ctx* u, const contact_pair* old)
{
	contact_state* c = u->c;
	contact_pair pair = *old;
	pair.first = u->next_manifold_count;
	for (int m = 0; m < old->manifold_count; ++m)
	{
		c->next_manifolds[u->next_manifold_count++] = c->manifolds[old->first + m];
		for (int k = 0; k < c->manifolds[old->first + m].point_count; ++k)
		{
			u->points += 1;
			u->deepest = fmin(u->deepest, c->manifolds[old->first + m].points[k].separation);
		}
	}
	c->next_pairs[u->next_count++] = pair;
	u->touching += (pair.flags & PAIR_TOUCHING) ? 1 : 0;
}

static void keep_or_end(update_ctx* u, const contact_pair* p)
{
	sn_world* world = u->world;
	contact_state* c = u->c;
	if (!contact_pair_is_current(world->contacts.shapes, p) ||
		(c->refilter && !contact_should_collide(world, p->shape_a, p->shape_b)) || !pair_overlaps(c, p))
	{
		end_pair(u, p);
		return;
	}
	if (pair_frozen(world, p))
	{
		keep_pair(u, p);
		return;
	}
	evaluate_pair(u, *p, p);
}

static void begin_pair(update_ctx* u, const broadphase_pair* k)
{
	const contact_state* c = u->c;
	const shape* a = c->shapes + k->user_a;
	const shape* b = c->shapes + k->user_b;
	contact_pair p;
	memset(&p, 0, sizeof(p));
	p.shape_a = k->user_a;
	p.shape_b = k->user_b;
	p.generation_a = a->generation;
	p.generation_b = b->generation;
	p.body_a = body_id_of(u->world, a->body);
	p.body_b = body_id_of(u->world, b->body);
	p.flags = (a->sensor || b->sensor) ? PAIR_SENSOR : 0u;
	u->begun += 1;
	evaluate_pair(u, p, NULL);
}

static void swap_arrays(void** x, void** y, int* cx, int* cy)
{
	void* t = *x;
	*x = *y;
	*y = t;
	int n = *cx;
	*cx = *cy;
	*cy = n;
}

void contact_update(sn_world* world, double dt)
{
	contact_state* c = &world->contacts;
	c->begin_count = c->end_count = c->sensor_begin_count = c->sensor_end_count = 0;
	c->dropped = 0;
	if (c->shape_count == 0 && c->pair_count == 0)
	{
		sn_collision_stats empty;
		memset(&empty, 0, sizeof(empty));
		c->stats = empty;
		return;
	}
	update_ctx u;
	memset(&u, 0, sizeof(u));
	u.world = world;
	u.c = c;
	u.dt = dt;
	// Merge the cache (sorted) with the candidates (sorted): a candidate already cached is that pair.
	int i = 0, k = 0;
	while (i < c->pair_count || k < c->candidate_count)
	{
		const contact_pair* p = i < c->pair_count ? c->pairs + i : NULL;
		const broadphase_pair* q = k < c->candidate_count ? c->candidates + k : NULL;
		uint64_t pk = p != NULL ? contact_pair_key(p->shape_a, p->shape_b) : UINT64_MAX;
		uint64_t qk = q != NULL ? contact_pair_key(q->user_a, q->user_b) : UINT64_MAX;
		if (p != NULL && pk <= qk)
		{
			bool current = contact_pair_is_current(world->contacts.shapes, p);
			keep_or_end(&u, p);
			i += 1;
			if (pk == qk && current)
			{
				k += 1; // the candidate is this pair
			}
			continue;
		}
		begin_pair(&u, q);
		k += 1;
	}
	swap_arrays((void**)&c->pairs, (void**)&c->next_pairs, &c->pair_capacity, &c->next_pair_capacity);
	swap_arrays((void**)&c->manifolds, (void**)&c->next_manifolds, &c->manifold_capacity, &c->next_manifold_capacity);
	c->pair_count = u.next_count;
	c->manifold_count = u.next_manifold_count;
	c->candidate_count = 0;
	c->refilter = false;
	c->dropped_total += c->dropped;
	for (int s = 0; s < c->shape_high; ++s)
	{
		c->shapes[s].flags &= (uint8_t)~SHAPE_FIND_PAIRS;
	}
	c->stats.shapes = c->shape_count;
	c->stats.proxies = c->bp.trees[0].proxy_count + c->bp.trees[1].proxy_count + c->bp.trees[2].proxy_count;
	c->stats.pairs = c->pair_count;
	c->stats.manifolds = c->manifold_count;
	c->stats.points = u.points;
	c->stats.touching = u.touching;
	c->stats.pairs_begun = u.begun;
	c->stats.pairs_ended = u.ended;
	c->stats.deepest = u.deepest;
	c->stats.pairs_dropped = c->pairs_dropped + c->bp.pairs_dropped;
}

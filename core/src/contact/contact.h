// Collision detection in the world (core/src/contact/): the state a world keeps for it and the stages
// of its step. The kernels (geometry, narrowphase, broadphase trees, queries on placed shapes) are in
// core/src/collide/; this module puts them to work on the world's shapes, bodies and articulation links.
//
//   contact/update.c    the collision stage of a step: shape poses and proxies, pair finding, the pair
//                       cache with its manifolds and warm starts, events (its top comment derives it)
//   contact/filter.c    which pairs may collide: categories and masks, articulation self-collision and
//                       adjacency, maximal joints, explicit exclusions
//   contact/readback.c  contacts, events and statistics through the public API; the state hash
//   contact/query.c     ray casts, overlaps and closest points against the world
//   contact/snapshot.c  the SHAP and CONT sections of world snapshots
//
// Shapes themselves (the pool, validation, mass from shapes) are in shape.c.
#ifndef SINEW_CONTACT_H
#define SINEW_CONTACT_H

#include "collide/broadphase.h"
#include "collide/manifold.h"
#include "shape.h"

#include "sinew/collision.h"

struct snap_writer;
struct snap_reader;

// A contact point as the pair cache keeps it: the narrowphase's point and the solver's warm starts.
typedef struct contact_point
{
	sn_vec3 position;          // world, midway between the surfaces, m
	double separation;         // m, < 0 overlapping
	uint64_t id;               // feature pair (collide/manifold.h)
	double normal_impulse;     // warm start, N*s (the contact solver writes it)
	double tangent_impulse[2]; // warm start, N*s
	bool persisted;            // matched a point of the previous step
} contact_point;

typedef struct contact_manifold
{
	sn_vec3 normal; // world unit normal from shape A to shape B
	int point_count;
	contact_point points[COLLIDE_MANIFOLD_POINTS];
} contact_manifold;

enum
{
	PAIR_TOUCHING = 1, // touching (a sensor pair: overlapping) after the last update
	PAIR_SENSOR = 2,   // one of the shapes is a sensor: overlap only, no manifolds
};

// A pair of shapes whose fat boxes overlap and whose filter admits them, keyed by (shape_a, shape_b),
// shape_a < shape_b (slots). The shapes' generations tell a pair whose shape was destroyed (and perhaps
// its slot reused) since: such a pair ends in the next update.
typedef struct contact_pair
{
	int32_t shape_a, shape_b;
	uint32_t generation_a, generation_b; // slot generations when the pair was made
	sn_body_id body_a, body_b;           // the shapes' bodies (null: the world), for readback and events
	int32_t first;                       // its manifolds in contact_state.manifolds
	int32_t manifold_count;
	uint32_t flags; // PAIR_*
} contact_pair;

static inline uint64_t contact_pair_key(int32_t a, int32_t b)
{
	return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

// Whether a cached pair's shapes are both still the ones it was made for.
static inline bool contact_pair_is_current(const shape* shapes, const contact_pair* p)
{
	const shape* a = shapes + p->shape_a;
	const shape* b = shapes + p->shape_b;
	return a->live && b->live && a->generation == p->generation_a && b->generation == p->generation_b;
}

typedef struct contact_state
{
	// The shape pool (shape.c).
	shape* shapes;
	int shape_capacity;
	int shape_high;
	int shape_count;
	int32_t shape_free;
	int32_t world_shape_head; // the world's own shapes (null body), -1 if none
	int32_t* planes;          // plane shape slots, ascending
	int plane_count;
	int plane_capacity;

	broadphase bp;

	// The pair cache, sorted by key, with its manifolds; the update writes the next ones and swaps.
	contact_pair* pairs;
	int pair_count;
	int pair_capacity;
	contact_pair* next_pairs;
	int next_pair_capacity;
	contact_manifold* manifolds;
	int manifold_count;
	int manifold_capacity;
	contact_manifold* next_manifolds;
	int next_manifold_capacity;
	// New pairs found this update (broadphase and planes), sorted.
	broadphase_pair* candidates;
	int candidate_count;
	int candidate_capacity;

	// Filtering (contact/filter.c). Explicit exclusions (state): sorted keys of body-slot pairs (slot + 1,
	// 0 for the world). Joint pairs (derived from the joints): sorted keys of bodies a joint without
	// collide_connected joins, rebuilt when joints changed.
	uint64_t* exclusions;
	int exclusion_count;
	int exclusion_capacity;
	uint64_t* joint_pairs;
	int joint_pair_count;
	int joint_pair_capacity;
	bool joint_pairs_dirty; // joints were created or destroyed since the rebuild
	bool refilter;          // a rule changed: every cached pair is checked again in the next update

	bool proxies_stale; // bodies moved since the proxies were last updated (queries refresh them)
	// Scratch of the update: the motion of each link's body (by body slot), in one pass per articulation.
	struct link_motion* motions;
	int motion_capacity;

	// Events of the last update (bounded by SN_MAX_CONTACT_EVENTS each).
	sn_contact_event* begin_events;
	sn_contact_event* end_events;
	sn_sensor_event* sensor_begin_events;
	sn_sensor_event* sensor_end_events;
	int begin_count, end_count, sensor_begin_count, sensor_end_count;
	int begin_capacity, end_capacity, sensor_begin_capacity, sensor_end_capacity;
	uint64_t dropped, dropped_total;
	uint64_t pairs_dropped; // candidates not made into pairs for max_pairs
	int max_pairs;          // SN_MAX_CONTACT_PAIRS (the broadphase's bound too; tests lower both)

	sn_collision_stats stats;
} contact_state;

// ---- contact/update.c ---------------------------------------------------------------------------------

void contact_init(sn_world* world);
void contact_release(sn_world* world);
// The first half of the step's collision stage: poses and proxies, pair finding, and every allocation the
// second half needs. SN_ERR_NO_MEMORY (with the detail line) leaves the world's state as it was: the
// next step finds the same pairs.
sn_error contact_prepare(sn_world* world, double dt);
// The second half: the pair cache, the narrowphase, warm starts and events. Allocates nothing.
void contact_update(sn_world* world, double dt);
// Bring every proxy up to the bodies' current poses (the queries call it when bodies moved since).
void contact_refresh_proxies(sn_world* world);
// Place a shape at its body's current pose for a step of dt: its world pose, speed bound and (planes)
// world plane into the record; the box its proxy must hold into *tight (if not NULL): the shape's box
// grown by dt times its speed bound and by half SN_SPECULATIVE_DISTANCE, or, for a shape beyond
// SN_COLLIDE_WORLD_EXTENT (*far), a parking box of its own far from everything.
void contact_place_shape(sn_world* world, shape* s, int32_t index, double dt, collide_aabb* tight, bool* far);
// The fattening of a shape's proxy box, m: none for static geometry, which never moves (Box2D v3 gives
// static proxies no margin either); for a moving shape BROADPHASE_DEFAULT_MARGIN (0.1 m, Box2D's), but at
// most half the shape's reach, so that small shapes (5 cm spheres) do not pair with every neighbour
// within 20 cm. A proxy is re-inserted only when its shape has moved about this far.
double contact_fat_margin(const sn_world* world, const shape* s);

// ---- contact/filter.c ---------------------------------------------------------------------------------

// Whether two shapes (slots) may collide by every rule (shape.h).
bool contact_should_collide(const sn_world* world, int32_t a, int32_t b);
// The broadphase's filter callback (context: the world).
bool contact_filter_callback(void* context, int32_t a, int32_t b);
// Rebuild the joint pairs if joints changed. SN_ERR_NO_MEMORY leaves them dirty.
sn_error contact_filter_prepare(sn_world* world);
// A joint was created or destroyed (joint.c), or its collide_connected changed: joint pairs are rebuilt
// and cached pairs checked again; the bodies' shapes look for pairs again.
void contact_joints_changed(sn_world* world, int32_t body_a, int32_t body_b);
// A body slot is being destroyed: drop its exclusions.
void contact_forget_body(sn_world* world, int32_t owner);

// ---- contact/readback.c -------------------------------------------------------------------------------

uint64_t contact_state_hash(const sn_world* world, uint64_t h);

// ---- contact/snapshot.c -------------------------------------------------------------------------------

void contact_snapshot_write_shapes(struct snap_writer* w, const sn_world* world);
sn_error contact_snapshot_read_shapes(struct snap_reader* r, sn_world* world);
void contact_snapshot_write_pairs(struct snap_writer* w, const sn_world* world);
sn_error contact_snapshot_read_pairs(struct snap_reader* r, sn_world* world);

#endif
